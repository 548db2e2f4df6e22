/**
 * The service's storage for a run: a temp SQLite file, or its own PostgreSQL or MongoDB database
 * and its own Redis key prefix.
 */
import crypto from "node:crypto";
import path from "node:path";
import Redis from "ioredis";
import mongoose from "mongoose";
import { Client as PgClient } from "pg";
import { errText, type Context, type RunId } from "./context";
import { onCleanUp } from "./lifecycle";

export interface Backends {
  env: Record<string, string>;
  noauthRedisUrl?: string;
  describe: string;
}

/** The settings for `run`, or why it cannot run here (Redis, PostgreSQL or MongoDB unreachable). */
export async function prepareBackends(ctx: Context, run: RunId, tmp: string): Promise<Backends | string> {
  if (run === "embedded") {
    return { env: { SQLITE_PATH: path.join(tmp, "users.sqlite") }, describe: "SQLite (temp file) + in-memory cache" };
  }
  const redisUrl = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
  const pgUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const noauthRedisUrl = process.env.BENCH_NOAUTH_REDIS_URL ?? withRedisDb(redisUrl, 1);

  const redis = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on("error", () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    return `Redis not reachable at ${redisUrl} (${errText(err)})`;
  }
  const prefix = `bench:${ctx.tag}:`;
  onCleanUp(async () => {
    // The service's cache keys live under our own prefix: remove them (bounded scan).
    let cursor = "0";
    let rounds = 0;
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== "0" && ++rounds < 10_000);
    redis.disconnect();
  });

  const dbName = `mgl_bench_${crypto.randomBytes(6).toString("hex")}`;
  if (run === "redis-mongo") {
    const mongoUrl = process.env.BENCH_MONGODB_URL ?? "mongodb://127.0.0.1:27017/?directConnection=true";
    const dbUrl = new URL(mongoUrl);
    dbUrl.pathname = `/${dbName}`;
    let connection: mongoose.Connection;
    try {
      connection = await mongoose.createConnection(dbUrl.toString(), { serverSelectionTimeoutMS: 2000 }).asPromise();
    } catch (err) {
      return `MongoDB not reachable at ${mongoUrl} (${errText(err)}; bash scripts/test-services.sh starts FerretDB)`;
    }
    onCleanUp(async () => {
      await connection.dropDatabase();
      await connection.close();
    });
    return {
      env: { REDIS_URL: redisUrl, CACHE_KEY_PREFIX: prefix, DATABASE_URL: dbUrl.toString(), SQLITE_PATH: path.join(tmp, "unused.sqlite") },
      noauthRedisUrl,
      describe: `MongoDB on FerretDB (${dbName}) + Redis (prefix ${prefix})`,
    };
  }
  try {
    await asPgAdmin(pgUrl, (c) => c.query(`CREATE DATABASE "${dbName}"`));
  } catch (err) {
    return `PostgreSQL not reachable at ${pgUrl} (${errText(err)})`;
  }
  onCleanUp(() => asPgAdmin(pgUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`)).then(() => undefined));
  const dbUrl = new URL(pgUrl);
  dbUrl.pathname = `/${dbName}`;
  return {
    env: { REDIS_URL: redisUrl, CACHE_KEY_PREFIX: prefix, DATABASE_URL: dbUrl.toString(), SQLITE_PATH: path.join(tmp, "unused.sqlite") },
    noauthRedisUrl,
    describe: `PostgreSQL (${dbName}) + Redis (prefix ${prefix})`,
  };
}

async function asPgAdmin(url: string, fn: (client: PgClient) => Promise<unknown>): Promise<void> {
  const client = new PgClient({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    await fn(client);
  } finally {
    await client.end();
  }
}

function withRedisDb(url: string, db: number): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}
