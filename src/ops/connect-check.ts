/**
 * `npm run config:check -- --connect`, and start:prod before pm2 starts anything: reaches what a
 * start needs and names the one that does not answer. The database and Redis (or the cluster) are
 * asked as the server would ask them, without migrating or writing anything; each platform API
 * base URL is reached over HTTP (any HTTP answer counts: the host is there and the path is open).
 */
import fs from "node:fs";
import path from "node:path";
import { createCache } from "../adapters/cache/create-cache";
import type { AppConfig } from "../config/config";

export interface ConnectResult {
  /** What was reached, without credentials: `PostgreSQL (DATABASE_URL)`, `wechat API https://…`. */
  what: string;
  ok: boolean;
  /** Why not, when not. */
  detail?: string;
  /** A platform endpoint: start:prod warns about it instead of refusing (a platform may be down for a moment). */
  platform?: boolean;
}

const CONNECT_TIMEOUT_MS = 5000;

async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_r, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function attempt(what: string, work: () => Promise<void>, platform = false): Promise<ConnectResult> {
  try {
    await within(CONNECT_TIMEOUT_MS, what, work());
    return { what, ok: true, platform };
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
    return { what, ok: false, platform, detail: e.code ?? e.cause?.code ?? e.message };
  }
}

async function reachDatabase(store: AppConfig["store"]): Promise<void> {
  if (store.kind === "sqlite") {
    // The file is created at start: its folder must be there, or creatable, and writable.
    let dir = path.dirname(path.resolve(store.path));
    while (!fs.existsSync(dir)) dir = path.dirname(dir);
    fs.accessSync(dir, fs.constants.W_OK);
    return;
  }
  if (store.kind === "postgres") {
    const { Client } = await import("pg");
    const client = new Client({ connectionString: store.url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    client.on("error", () => undefined);
    try {
      await client.connect();
      await client.query("select 1");
    } finally {
      await client.end().catch(() => undefined);
    }
    return;
  }
  const mongoose = (await import("mongoose")).default;
  const connection = mongoose.createConnection(store.url, { serverSelectionTimeoutMS: CONNECT_TIMEOUT_MS, autoIndex: false, autoCreate: false });
  connection.on("error", () => undefined);
  try {
    await connection.asPromise();
    await connection.db!.admin().ping();
  } finally {
    await connection.close().catch(() => undefined);
  }
}

async function reachRedis(config: AppConfig): Promise<void> {
  const cache = await createCache(config.cache, config.cacheKeyPrefix);
  try {
    await cache.ping();
  } finally {
    await cache.close();
  }
}

/** Each distinct platform API base URL of every app, with the apps using it. */
function platformEndpoints(config: AppConfig): Array<{ what: string; url: string }> {
  const byUrl = new Map<string, { platform: string; apps: string[] }>();
  for (const app of config.apps) {
    for (const [platform, settings] of Object.entries(app.platforms)) {
      const seen = byUrl.get(settings.apiBaseUrl);
      if (seen) seen.apps.push(app.key);
      else byUrl.set(settings.apiBaseUrl, { platform, apps: [app.key] });
    }
  }
  return [...byUrl].map(([url, { platform, apps }]) => ({ url, what: `${platform} API ${url} (app${apps.length === 1 ? "" : "s"} ${apps.join(", ")})` }));
}

export async function checkConnections(config: AppConfig): Promise<ConnectResult[]> {
  const database = { sqlite: "SQLite folder (SQLITE_PATH)", postgres: "PostgreSQL (DATABASE_URL)", mongodb: "MongoDB (DATABASE_URL)" }[config.store.kind];
  const checks: Promise<ConnectResult>[] = [attempt(database, () => reachDatabase(config.store))];
  if (config.cache.kind !== "memory") {
    checks.push(attempt(config.cache.kind === "redis" ? "Redis (REDIS_URL)" : "Redis Cluster (REDIS_CLUSTER_NODES)", () => reachRedis(config)));
  }
  for (const endpoint of platformEndpoints(config)) {
    checks.push(
      attempt(
        endpoint.what,
        async () => {
          await fetch(endpoint.url, { method: "GET", redirect: "manual", signal: AbortSignal.timeout(CONNECT_TIMEOUT_MS) }).then((res) => res.body?.cancel());
        },
        true,
      ),
    );
  }
  return Promise.all(checks);
}

/** One line per check: `ok    PostgreSQL (DATABASE_URL)` or `FAIL  Redis (REDIS_URL): ECONNREFUSED`. */
export function formatConnections(results: readonly ConnectResult[]): string {
  return results.map((r) => (r.ok ? `  ok    ${r.what}` : `  FAIL  ${r.what}: ${r.detail ?? "no answer"}`)).join("\n");
}
