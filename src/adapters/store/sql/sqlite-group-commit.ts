import type SqliteDatabase from "better-sqlite3";
import type { CompiledQuery, Kysely } from "kysely";

/** Runs one compiled query on the raw database, synchronously; rows of a query that returns any. */
export type RunQuery = <Row>(query: CompiledQuery<Row>) => Row[];

interface Pending {
  work: (run: RunQuery) => unknown;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
  /** Set while the group runs: what `work` returned, or the error it failed with alone. */
  outcome?: { value: unknown } | { error: unknown };
}

/**
 * Write transactions on SQLite, committed in groups. Every piece of work handed in while one turn
 * of the event loop runs joins one transaction, each in a savepoint of its own: a failing piece
 * (a taken identity) is rolled back alone, the others commit together.
 *
 * Why: with synchronous=FULL every COMMIT is an fsync, and every commit rewrites each B-tree page
 * it touched into the WAL; a burst of new players paid both once per player. A group pays them
 * once. Durability is unchanged: each caller's promise settles only after its group's COMMIT
 * returned, so no answer ever goes out for a write that is not on disk.
 *
 * The group runs synchronously under Kysely's connection lock, so it never interleaves with a
 * Kysely transaction that is waiting between two of its statements.
 */
export class SqliteGroupCommit {
  private queue: Pending[] = [];
  private readonly commitGroup: (group: Pending[]) => void;
  private readonly runInSavepoint: (work: Pending["work"]) => unknown;
  private readonly run: RunQuery;

  constructor(
    private readonly kysely: Kysely<unknown>,
    private readonly database: SqliteDatabase.Database,
  ) {
    this.run = <Row>(query: CompiledQuery<Row>): Row[] => {
      // database.prepare is the store's statement cache (create-user-store.ts), so this prepares once per SQL text.
      const statement = database.prepare(query.sql);
      const parameters = query.parameters as unknown[];
      if (statement.reader) return statement.all(parameters) as Row[];
      statement.run(parameters);
      return [];
    };
    // A transaction function called inside another one runs in a savepoint (better-sqlite3).
    this.runInSavepoint = database.transaction((work: Pending["work"]) => work(this.run));
    const group = database.transaction((pending: Pending[]) => {
      for (const item of pending) {
        try {
          item.outcome = { value: this.runInSavepoint(item.work) };
        } catch (err) {
          item.outcome = { error: err };
          // SQLite itself rolled the whole transaction back (I/O error, disk full): nothing of the group survives.
          if (!database.inTransaction) throw err;
        }
      }
    });
    // IMMEDIATE: take the write lock at BEGIN (waiting out busy_timeout), not halfway through the group.
    this.commitGroup = (pending) => group.immediate(pending);
  }

  /** Runs `work` in the next group; settles once that group is committed (or with `work`'s own error). */
  write<T>(work: (run: RunQuery) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.queue.length === 0) setImmediate(() => void this.flush());
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  private async flush(): Promise<void> {
    const pending = this.queue;
    this.queue = [];
    let groupError: { error: unknown } | undefined;
    try {
      await this.kysely.connection().execute(async () => this.commitGroup(pending));
    } catch (err) {
      groupError = { error: err };
    }
    for (const { outcome, resolve, reject } of pending) {
      // A piece that failed alone keeps its own error; the others share the group's fate.
      if (outcome && "error" in outcome) reject(outcome.error);
      else if (groupError) reject(groupError.error);
      else resolve(outcome?.value);
    }
  }
}
