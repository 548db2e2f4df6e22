/**
 * SQLite's group commit on a real database file: a burst shares one commit, a failing piece is
 * rolled back alone, and a group that cannot commit settles every caller with the error.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import { Kysely, SqliteDialect, sql, type CompiledQuery } from "kysely";
import { SqliteGroupCommit } from "../../src/adapters/store/sql/sqlite-group-commit";

describe("SQLite group commit", () => {
  let dir: string;
  let file: string;
  let database: SqliteDatabase.Database;
  let kysely: Kysely<unknown>;
  let writes: SqliteGroupCommit;

  const insert = (name: string): CompiledQuery => ({ sql: "insert into players (name) values (?) returning id", parameters: [name], query: undefined as never, queryId: undefined as never });
  const names = (): string[] => database.prepare("select name from players order by id").pluck().all() as string[];
  /** Frames in the WAL since it was last emptied: every commit appends the pages it changed. */
  const walFrames = (): number => (database.pragma("wal_checkpoint(PASSIVE)") as { log: number }[])[0].log;
  const emptyWal = (): void => void database.pragma("wal_checkpoint(TRUNCATE)");

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-group-commit-"));
    file = path.join(dir, "group.sqlite");
    database = new SqliteDatabase(file);
    database.pragma("journal_mode = WAL");
    database.pragma("synchronous = FULL");
    database.pragma("busy_timeout = 100");
    database.exec("create table players (id integer primary key, name text not null unique)");
    kysely = new Kysely<unknown>({ dialect: new SqliteDialect({ database }) });
    writes = new SqliteGroupCommit(kysely, database);
  });

  afterEach(async () => {
    await kysely.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("commits a burst of writes once, where one at a time commits each", async () => {
    emptyWal();
    for (let i = 0; i < 20; i++) await writes.write((run) => run(insert(`alone-${i}`)));
    const oneByOne = walFrames();

    emptyWal();
    await Promise.all(Array.from({ length: 20 }, (_, i) => writes.write((run) => run(insert(`burst-${i}`)))));
    const burst = walFrames();

    assert.ok(oneByOne >= 20, `each awaited write is its own commit (${oneByOne} WAL frames)`);
    assert.ok(burst <= 2, `a burst is one commit (${burst} WAL frames for 20 rows)`);
    assert.equal(names().length, 40);
  });

  it("answers each caller with its own result and rolls back only the piece that failed", async () => {
    const results = await Promise.allSettled([
      writes.write((run) => run(insert("ann"))),
      writes.write((run) => {
        run(insert("bea"));
        run(insert("ann")); // unique: this piece fails after writing a row of its own
      }),
      writes.write((run) => run<{ id: number }>(insert("cid"))[0].id),
    ]);
    assert.equal(results[0].status, "fulfilled");
    assert.equal(results[1].status, "rejected");
    assert.match(String((results[1] as PromiseRejectedResult).reason), /UNIQUE/);
    assert.deepEqual(results[2], { status: "fulfilled", value: 2 });
    assert.deepEqual(names(), ["ann", "cid"], "bea, written by the failed piece, is rolled back with it");
  });

  it("settles every caller with the error when the group cannot commit, and writes again once it can", async () => {
    const other = new SqliteDatabase(file);
    other.prepare("begin immediate").run(); // another process holds the write lock past busy_timeout
    try {
      const results = await Promise.allSettled([writes.write((run) => run(insert("x"))), writes.write((run) => run(insert("y")))]);
      for (const r of results) {
        assert.equal(r.status, "rejected");
        assert.equal((r.reason as { code?: string }).code, "SQLITE_BUSY");
      }
    } finally {
      other.prepare("rollback").run();
      other.close();
    }
    assert.deepEqual(names(), []);
    await writes.write((run) => run(insert("z")));
    assert.deepEqual(names(), ["z"]);
  });

  it("waits for a Kysely transaction that is between two statements instead of joining it", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = kysely.transaction().execute(async (trx) => {
      await sql`insert into players (name) values ('in-transaction')`.execute(trx);
      await held;
      throw new Error("roll back");
    });
    await new Promise((resolve) => setImmediate(resolve));
    const grouped = writes.write((run) => run(insert("grouped")));
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await assert.rejects(transaction, /roll back/);
    await grouped;
    assert.deepEqual(names(), ["grouped"], "the group neither joined nor was undone by the rolled-back transaction");
  });
});
