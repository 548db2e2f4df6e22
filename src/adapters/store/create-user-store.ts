import fs from "node:fs";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import { Pool } from "pg";
import type { AppConfig } from "../../config/config";
import type { UserStore } from "../../core/ports/user-store";
import { KyselyUserStore, type Database } from "./kysely-user-store";
import { failFastWhenUnavailable } from "./unavailable-errors";

/** Opens the configured database and brings its schema up to date before handing it out. */
export async function createUserStore(config: AppConfig["store"]): Promise<UserStore> {
  const store = config.kind === "postgres" ? openPostgres(config.url) : openSqlite(config.path);
  try {
    await store.migrate();
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
  return failFastWhenUnavailable(store);
}

function openSqlite(file: string): KyselyUserStore {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const database = new SqliteDatabase(file);
  // WAL lets readers proceed during a write; busy_timeout waits out another connection's write
  // instead of failing at once; foreign keys are off by default in SQLite.
  database.pragma("journal_mode = WAL");
  database.pragma("busy_timeout = 5000");
  database.pragma("foreign_keys = ON");
  cachePreparedStatements(database);
  return new KyselyUserStore(new Kysely<Database>({ dialect: new SqliteDialect({ database }) }), "sqlite");
}

/**
 * Kysely prepares every query anew; on SQLite preparing costs about as much as running a simple
 * lookup. Kysely only calls all/run/iterate synchronously, so one statement per SQL text can be
 * reused safely. The cache is bounded: the store issues a few dozen distinct statements at most.
 */
function cachePreparedStatements(database: SqliteDatabase.Database, max = 256): void {
  const prepare = database.prepare.bind(database);
  const cache = new Map<string, SqliteDatabase.Statement>();
  database.prepare = ((source: string) => {
    let statement = cache.get(source);
    if (!statement) {
      statement = prepare(source);
      if (cache.size >= max) cache.delete(cache.keys().next().value as string);
      cache.set(source, statement);
    }
    return statement;
  }) as typeof database.prepare;
}

function openPostgres(url: string): KyselyUserStore {
  const pool = new Pool({
    connectionString: url,
    max: 10,
    // Fail fast when the database is down or stuck rather than holding requests open.
    connectionTimeoutMillis: 3000,
    statement_timeout: 5000,
    // Client-side backstop for a silent network; a little above the server-side timeout so the
    // server normally cancels first and the connection stays usable.
    query_timeout: 6000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its connection emits "error" on the pool; unhandled, that would crash
  // the process. The next query fails on its own and reports it.
  pool.on("error", () => undefined);
  return new KyselyUserStore(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), "postgres");
}
