/**
 * Opens a store of one capability on the configured database and migrates it: the one shape every
 * small store's factory had (a Kysely store for SQLite and PostgreSQL, a mongoose one for MongoDB),
 * written once. A store whose migration fails is closed before the error goes on.
 */
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import type mongoose from "mongoose";
import type { AppConfig } from "../../config/config";
import { sharedSqliteConnection } from "./create-user-store";
import { openMongoConnection } from "./mongo/open-mongo";
import { createPostgresPool } from "./sql/postgres-pool";
import { openSqliteFile } from "./sql/sqlite-file";
import { failFastWhenUnavailable } from "./unavailable-errors";

export interface MigratingStore {
  migrate(): Promise<void>;
  close(): Promise<void>;
}

export interface StoreBuilders<S, DB> {
  /** `close` is absent when the connection is the user store's (it closes it). */
  sql(db: Kysely<DB>, dialect: "sqlite" | "postgres", close?: () => Promise<void>): S;
  mongo(connection: mongoose.Connection, close: () => Promise<void>): S;
}

export interface OpenStoreOptions {
  /** Use this process's user-store connection to the SQLite file (the server), where it has one. */
  shareSqlite?: boolean;
  /** Connections of its own (PostgreSQL pool, MongoDB pool). */
  connections?: number;
  /** SQLite's synchronous pragma when the settings name none. */
  synchronousDefault?: "FULL" | "NORMAL";
  /** The store's name in a 503's message ("The LiveOps store is unavailable; retry later"). */
  what: string;
}

export async function openStore<S extends MigratingStore, DB>(config: AppConfig["store"], build: StoreBuilders<S, DB>, options: OpenStoreOptions): Promise<S> {
  const connections = options.connections ?? 3;
  let store: S;
  const shared = config.kind === "sqlite" && options.shareSqlite ? sharedSqliteConnection(config.path) : undefined;
  if (shared) {
    store = build.sql(shared as unknown as Kysely<DB>, "sqlite");
  } else if (config.kind === "sqlite") {
    const database = openSqliteFile(config.path, config.synchronous ?? options.synchronousDefault);
    const db = new Kysely<DB>({ dialect: new SqliteDialect({ database }) });
    store = build.sql(db, "sqlite", () => db.destroy());
  } else if (config.kind === "mongodb") {
    const connection = await openMongoConnection(config.url, config, connections);
    store = build.mongo(connection, () => connection.close());
  } else {
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: createPostgresPool(config.url, config, connections) }) });
    store = build.sql(db, "postgres", () => db.destroy());
  }
  try {
    await store.migrate();
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
  // A database that cannot answer now (a timeout, a full pool, a dropped connection) is a 503, never a 500.
  return failFastWhenUnavailable(store, options.what);
}
