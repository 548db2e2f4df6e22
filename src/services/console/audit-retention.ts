/**
 * The audit trail's retention (CONSOLE_AUDIT_RETENTION_DAYS): entries older than the retention are
 * removed in batches, every hour by each server process with the console on (several processes
 * doing it at once remove each entry once: a delete of what is already gone removes nothing), and
 * on demand by `npm run admin -- audit prune`. 0 days keeps everything.
 */
import type { OperatorStore } from "../../core/ports/operator-store";
import type { Logger } from "../../logging/logger";

const DAY_MS = 86_400_000;
const BATCH = 1000;
export const AUDIT_PRUNE_INTERVAL_MS = 3_600_000;

/** Removes every entry older than `retentionDays`; answers how many. 0 days removes nothing. */
export async function pruneAudit(store: Pick<OperatorStore, "pruneAudit">, retentionDays: number, now: number = Date.now()): Promise<{ removed: number; before: string | null }> {
  if (retentionDays <= 0) return { removed: 0, before: null };
  const before = new Date(now - retentionDays * DAY_MS).toISOString();
  let removed = 0;
  for (;;) {
    const batch = await store.pruneAudit(before, BATCH);
    removed += batch;
    if (batch < BATCH) return { removed, before };
  }
}

export class AuditRetention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly store: Pick<OperatorStore, "pruneAudit">,
    private readonly logger: Logger,
    private readonly options: { retentionDays: number; intervalMs?: number; now?: () => number },
  ) {}

  /** A prune now (not awaited: the server starts meanwhile), then every interval. */
  start(): void {
    if (this.options.retentionDays <= 0 || this.timer) return;
    void this.runOnce();
    this.timer = setInterval(() => void this.runOnce(), this.options.intervalMs ?? AUDIT_PRUNE_INTERVAL_MS);
    this.timer.unref();
  }

  /** Stops the timer and waits for a prune under way, so the store is not closed under it. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  runOnce(): Promise<void> {
    this.running ??= (async () => {
      try {
        const { removed, before } = await pruneAudit(this.store, this.options.retentionDays, (this.options.now ?? Date.now)());
        if (removed > 0) this.logger.info({ event: "operator_audit_pruned", removed, before }, "old audit entries removed");
      } catch (err) {
        this.logger.warn({ err, event: "operator_audit_prune_failed" }, "could not remove old audit entries; the next run tries again");
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }
}
