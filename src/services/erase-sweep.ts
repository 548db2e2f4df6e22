/**
 * Finishes erases (core/ports/erasure-marks.ts) on every server process: at start and every five
 * minutes. An unfinished mark (a crash or a failed delete stopped the erase) is run again and
 * finished; one finished in the last REDO_FINISHED_MS is run again too, which removes what a
 * request's write left when its process died between landing and checking the mark (kill -9).
 * Marks of erases finished more than a day ago are forgotten. Several processes sweeping at once
 * delete the same things; a delete of what is gone removes nothing.
 */
import type { ErasureMarks } from "../core/ports/erasure-marks";
import type { Logger } from "../logging/logger";
import type { AccountService } from "./account-service";

export const ERASE_SWEEP_INTERVAL_MS = 5 * 60_000;
const REDO_FINISHED_MS = 15 * 60_000;
const KEEP_FINISHED_MS = 24 * 3_600_000;

export interface EraseSweepReport {
  finished: number;
  redone: number;
  forgotten: number;
}

export class EraseSweep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<EraseSweepReport> | undefined;

  constructor(
    private readonly marks: ErasureMarks,
    private readonly accounts: Pick<AccountService, "runErase">,
    private readonly logger: Logger,
    private readonly options: { intervalMs?: number; now?: () => number } = {},
  ) {}

  /** A sweep now (not awaited: the server starts meanwhile), then every interval. */
  start(): void {
    if (this.timer) return;
    void this.runOnce();
    this.timer = setInterval(() => void this.runOnce(), this.options.intervalMs ?? ERASE_SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  /** Stops the timer and waits for a sweep under way, so the stores are not closed under it. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  runOnce(): Promise<EraseSweepReport> {
    this.running ??= this.sweep().finally(() => (this.running = undefined));
    return this.running;
  }

  private async sweep(): Promise<EraseSweepReport> {
    const report: EraseSweepReport = { finished: 0, redone: 0, forgotten: 0 };
    try {
      const now = (this.options.now ?? Date.now)();
      for (const mark of await this.marks.toRedo(new Date(now - REDO_FINISHED_MS).toISOString())) {
        try {
          await this.accounts.runErase(mark.userId);
          if (mark.finishedAt === null) {
            await this.marks.finish(mark.userId, new Date((this.options.now ?? Date.now)()).toISOString());
            report.finished++;
            this.logger.info({ event: "account_erase_finished", userId: mark.userId }, "an erase stopped half-way was finished");
          } else report.redone++;
        } catch (err) {
          this.logger.warn({ err, event: "account_erase_sweep_failed", userId: mark.userId }, "could not finish an erase; the next sweep tries again");
        }
      }
      report.forgotten = await this.marks.forgetFinished(new Date(now - KEEP_FINISHED_MS).toISOString());
    } catch (err) {
      this.logger.warn({ err, event: "account_erase_sweep_failed" }, "could not read the erases to finish; the next sweep tries again");
    }
    return report;
  }
}
