import type SqliteDatabase from "better-sqlite3";
import type { CompiledQuery, Kysely } from "kysely";
import { TurnBatch, type Outcome } from "./turn-batch";

/** Runs one compiled query on the raw database, synchronously; rows of a query that returns any. */
export type RunQuery = <Row>(query: CompiledQuery<Row>) => Row[];

type Work = (run: RunQuery) => unknown;

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
  private readonly groups: TurnBatch<Work, unknown>;

  constructor(
    private readonly kysely: Kysely<unknown>,
    database: SqliteDatabase.Database,
  ) {
    const run: RunQuery = <Row>(query: CompiledQuery<Row>): Row[] => {
      // database.prepare is the store's statement cache (create-user-store.ts), so this prepares once per SQL text.
      const statement = database.prepare(query.sql);
      const parameters = query.parameters as unknown[];
      if (statement.reader) return statement.all(parameters) as Row[];
      statement.run(parameters);
      return [];
    };
    // A transaction function called inside another one runs in a savepoint (better-sqlite3).
    const runInSavepoint = database.transaction((work: Work) => work(run));
    const group = database.transaction((works: Work[], outcomes: Outcome<unknown>[]) => {
      for (const work of works) {
        try {
          outcomes.push({ ok: true, value: runInSavepoint(work) });
        } catch (err) {
          outcomes.push({ ok: false, error: err });
          // SQLite itself rolled the whole transaction back (I/O error, disk full): nothing of the group survives.
          if (!database.inTransaction) throw err;
        }
      }
    });
    // The turn's whole group in one transaction, however large: each commit is an fsync.
    this.groups = new TurnBatch(async (works) => {
      const outcomes: Outcome<unknown>[] = [];
      try {
        // IMMEDIATE: take the write lock at BEGIN (waiting out busy_timeout), not halfway through the group.
        await this.kysely.connection().execute(async () => group.immediate(works, outcomes));
      } catch (err) {
        // A piece that failed alone keeps its own error; the others share the group's fate.
        return works.map((_, i) => (outcomes[i] && !outcomes[i].ok ? outcomes[i] : { ok: false, error: err }));
      }
      return outcomes;
    }, Infinity);
  }

  /** Runs `work` in the next group; settles once that group is committed (or with `work`'s own error). */
  write<T>(work: (run: RunQuery) => T): Promise<T> {
    return this.groups.add(work) as Promise<T>;
  }
}
