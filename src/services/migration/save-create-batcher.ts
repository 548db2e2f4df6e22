/**
 * Creates-if-absent of an import, gathered into batches: the rows an import has in flight at one
 * moment become one `writeForPlayers` call (one transaction, one commit) instead of one each. A
 * commit per row held the class import to ~1,600 rows/s on PostgreSQL
 * (bench/results/leancloud-class-import-2026-11-29.md).
 *
 * A batch is all-or-none, so one row must never decide for the others: a row that already exists
 * (an earlier run, or a write whose answer was lost) is answered `false` and the rest are written
 * again without it; a row the saves refuse (a name, a value, an owner's limit) sends its batch
 * through one row at a time, so only that row is refused. A store that fails or does not answer
 * fails every row of the batch: each is retried by the import as a create-if-absent, which finds
 * the rows that did land and counts them as already there — never undone, never written twice.
 */
import { AppError } from "../../core/errors";
import type { SaveReadPermission } from "../../core/ports/save-store";
import type { SaveService } from "../saves/save-service";

/** An object to create for a player: no version, so it is written only where none exists. */
export interface SaveCreate {
  ownerId: string;
  collection: string;
  key: string;
  value: Record<string, unknown>;
  permissionRead: SaveReadPermission;
}

interface Pending {
  input: SaveCreate;
  resolve(created: boolean): void;
  reject(err: unknown): void;
}

export class SaveCreateBatcher {
  private queue: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly saves: Pick<SaveService, "writeForPlayers">,
    private readonly app: string,
    /** Rows in one batch at most (the saves' SAVES_MAX_BATCH). */
    private readonly maxBatch: number,
  ) {}

  /** Creates the object if absent: true when created, false when it was already there. */
  create(input: SaveCreate): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      if (this.queue.length >= this.maxBatch) this.flush();
      else if (!this.scheduled) {
        // The rest of this turn's rows join the batch: the import starts a window of rows at once.
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    while (this.queue.length > 0) void this.settle(this.queue.splice(0, this.maxBatch));
  }

  private async settle(batch: Pending[]): Promise<void> {
    let rest = batch;
    while (rest.length > 0) {
      try {
        await this.saves.writeForPlayers(this.app, rest.map((p) => p.input));
        for (const pending of rest) pending.resolve(true);
        return;
      } catch (err) {
        const conflicted = conflictIndex(err, rest.length);
        if (conflicted !== undefined) {
          rest[conflicted].resolve(false);
          rest = rest.filter((_, i) => i !== conflicted);
          continue;
        }
        if (rest.length > 1 && err instanceof AppError && err.status < 500) {
          await Promise.all(rest.map((pending) => this.settle([pending])));
          return;
        }
        for (const pending of rest) pending.reject(err);
        return;
      }
    }
  }
}

/** The row of the batch that found its object already there, when that is why the batch was refused. */
function conflictIndex(err: unknown, size: number): number | undefined {
  if (!(err instanceof AppError) || err.code !== "version_conflict") return undefined;
  if (size === 1) return 0;
  const index = err.data.index;
  return typeof index === "number" && index >= 0 && index < size ? index : undefined;
}
