/**
 * The import's progress on stderr: a bar redrawn in place on a terminal, a plain line every few
 * seconds otherwise (pm2 logs, CI), each with the rate since the start of this run.
 */
import type { ImportState } from "../services/migration/import-run";

const BAR_WIDTH = 30;
const LINE_EVERY_MS = 5000;

export class ImportProgress {
  private readonly started = Date.now();
  private lastLine = 0;

  constructor(
    private readonly file: string,
    private readonly out: NodeJS.WriteStream,
    /** Players counted before this run (a resumed import): the rate is this run's. */
    private readonly startRead: number,
  ) {}

  show(state: ImportState): void {
    const fraction = state.size > 0 ? Math.min(1, state.offset / state.size) : 1;
    const seconds = Math.max(0.001, (Date.now() - this.started) / 1000);
    const rate = Math.round((state.counts.read - this.startRead) / seconds);
    const text = `${(fraction * 100).toFixed(1)}% ${state.counts.read.toLocaleString("en")} players, ${rate.toLocaleString("en")}/s`;
    if (this.out.isTTY) {
      const filled = Math.round(fraction * BAR_WIDTH);
      this.out.write(`\r[${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}] ${text}   `);
    } else if (Date.now() - this.lastLine >= LINE_EVERY_MS || fraction === 1) {
      this.lastLine = Date.now();
      this.out.write(`${this.file}: ${text}\n`);
    }
  }

  finish(): void {
    if (this.out.isTTY) this.out.write("\n");
  }
}
