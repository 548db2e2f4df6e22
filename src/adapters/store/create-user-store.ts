import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import type { AppConfig } from "../../config/config";
import type { EconomyStore } from "../../core/ports/economy-store";
import type { UserStore } from "../../core/ports/user-store";
import { openMongoUserStore } from "./mongo/open-mongo";
import type { EconomyCrashHook } from "./economy-chain";
import { KyselyEconomyStore, type EconomyDatabase } from "./sql/kysely-economy-store";
import { KyselyOrderLedger, type OrderDatabase } from "./sql/kysely-order-ledger";
import { KyselyUserStore, type Database, type KyselyUserStoreOptions } from "./sql/kysely-user-store";
import { createPostgresPool, type PostgresTimeouts } from "./sql/postgres-pool";
import { SqliteGroupCommit } from "./sql/sqlite-group-commit";
import { failFastWhenUnavailable } from "./unavailable-errors";
import { openSqliteFile } from "./sql/sqlite-file";

/** Opens the configured database and brings its schema up to date before handing it out. */
export async function createUserStore(config: AppConfig["store"], options: KyselyUserStoreOptions = {}): Promise<UserStore> {
  if (config.kind === "sqlite") {
    const store = openSqlite(config.path, config.synchronous ?? "FULL", options);
    await migrateOrClose(store);
    return failFastWhenUnavailable(store);
  }
  if (config.kind === "mongodb") {
    const store = await openMongoUserStore(config.url, config, options);
    await migrateOrClose(store);
    return failFastWhenUnavailable(store);
  }
  // Schema changes may wait for another process's migration lock and take longer than a request
  // may: they run on a short-lived pool of their own, without the serving pool's tight timeouts.
  const migrator = openPostgres(config.url, { ...config, queryTimeoutMs: MIGRATION_QUERY_TIMEOUT_MS }, {}, 2);
  await migrateOrClose(migrator);
  await migrator.close();
  return failFastWhenUnavailable(openPostgres(config.url, config, options));
}

const MIGRATION_QUERY_TIMEOUT_MS = 60_000;

async function migrateOrClose(store: UserStore): Promise<void> {
  try {
    await store.migrate();
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
}

function openSqlite(file: string, synchronous: "FULL" | "NORMAL", options: KyselyUserStoreOptions): KyselyUserStore {
  // The operator chooses durability (SQLITE_SYNCHRONOUS; see openSqliteFile); foreign keys are off by default in SQLite.
  const database = openSqliteFile(file, synchronous);
  database.pragma("foreign_keys = ON");
  cachePreparedStatements(database);
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  const key = path.resolve(file);
  sqliteConnections.set(key, kysely);
  const store = new KyselyUserStore(kysely, "sqlite", options, new SqliteGroupCommit(kysely as Kysely<unknown>, database));
  // A closed connection is no longer shared: a store opened later on the file opens its own.
  const close = store.close.bind(store);
  store.close = async () => {
    if (sqliteConnections.get(key) === kysely) sqliteConnections.delete(key);
    await close();
  };
  return store;
}

/** The connection this process opened to each SQLite file for its user store, for the order ledger to share. */
const sqliteConnections = new Map<string, Kysely<Database>>();

/**
 * The order ledger on the user store's own SQLite connection (opened by createUserStore for `file`):
 * better-sqlite3 waits for a lock synchronously, so a second connection to the file in this process
 * could stall on a transaction of the first that cannot go on while it waits. Closed with the store.
 */
export function sharedSqliteLedger(file: string): KyselyOrderLedger {
  const kysely = sqliteConnections.get(path.resolve(file));
  if (!kysely) throw new Error(`no user store is open on ${file} in this process`);
  return failFastWhenUnavailable(new KyselyOrderLedger(kysely as unknown as Kysely<OrderDatabase>, "sqlite"), "The order ledger");
}

/**
 * The user store's own SQLite connection of this process on `file` (opened by createUserStore), for
 * another feature's store to share, for the reason given at sharedSqliteLedger; undefined when this
 * process has not opened it (that store then opens the file itself).
 */
export function sharedSqliteConnection(file: string): Kysely<unknown> | undefined {
  return sqliteConnections.get(path.resolve(file)) as Kysely<unknown> | undefined;
}

/** The economy store on the user store's own SQLite connection, for the reason given above. */
export function sharedSqliteEconomy(file: string, crashPoint?: EconomyCrashHook): EconomyStore {
  const kysely = sqliteConnections.get(path.resolve(file));
  if (!kysely) throw new Error(`no user store is open on ${file} in this process`);
  return failFastWhenUnavailable(new KyselyEconomyStore(kysely as unknown as Kysely<EconomyDatabase>, "sqlite", undefined, crashPoint), "The economy store");
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

function openPostgres(url: string, timeouts: PostgresTimeouts, options: KyselyUserStoreOptions, maxConnections?: number): KyselyUserStore {
  const pool = createPostgresPool(url, timeouts, maxConnections);
  return new KyselyUserStore(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), "postgres", options);
}

