/**
 * Opens a SQLite file the way every store of this project does: its folder made, WAL (readers go on
 * during a write), busy_timeout (another connection's write is waited out, not failed at once) and
 * the chosen durability (FULL: every commit on disk before it returns; NORMAL in WAL: durable across
 * a process crash, a power loss may drop the last commits).
 */
import fs from "node:fs";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";

const BUSY_TIMEOUT_MS = 5000;
const SWITCH_RETRY_MS = 20;

export function openSqliteFile(file: string, synchronous: "FULL" | "NORMAL" | undefined): SqliteDatabase.Database {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const database = new SqliteDatabase(file, { timeout: BUSY_TIMEOUT_MS });
  database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  switchToWal(database);
  if (synchronous) database.pragma(`synchronous = ${synchronous}`);
  return database;
}

/**
 * Several processes opening one fresh file at once (pm2 starting a cluster) race to switch it to
 * WAL; SQLite answers the losers SQLITE_BUSY at once, without its busy handler, so the switch is
 * retried here, for as long as a lock would be waited for.
 */
function switchToWal(database: SqliteDatabase.Database): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      database.pragma("journal_mode = WAL");
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== "SQLITE_BUSY" || Date.now() > deadline) throw err;
      // Once, at start: a synchronous pause keeps the opener's signature synchronous.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, SWITCH_RETRY_MS);
    }
  }
}
