/**
 * What a flood of matchmaking requests with rotating spoofed client addresses costs the server:
 * `node --import tsx bench/spoofed-headers.ts [--root <checkout>] [--requests 8000]`.
 *
 * Starts the server (src/server/index.ts of `--root`, default this checkout) on 127.0.0.1, embedded and
 * then on Redis + PostgreSQL (when TEST_REDIS_URL / TEST_DATABASE_URL are set), sends the requests
 * without a token (each one reaches the per-IP limiter before the token check) with a new
 * X-Forwarded-For and X-Real-IP every time, and prints the server's RSS growth and, on Redis, the
 * growth of `used_memory` and of the number of keys under the run's prefix. Loopback only, bounded.
 */
import http from "node:http";
import os from "node:os";
import path from "node:path";
import fs from "node:fs";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import Redis from "ioredis";
import { createTestDatabase } from "../test/support/postgres";
import { freePort, rssMiB, sleep, startNode, stopAll, waitForHttp } from "./lib/procs";

const { values } = parseArgs({ options: { root: { type: "string" }, requests: { type: "string" }, concurrency: { type: "string" } } });
const ROOT = path.resolve(values.root ?? path.join(__dirname, ".."));
const REQUESTS = Math.min(Number(values.requests ?? 8000), 50_000);
const CONCURRENCY = Number(values.concurrency ?? 20);
const TSX = pathToFileURL(path.join(path.dirname(require.resolve("tsx/package.json", { paths: [__dirname] })), "dist/loader.mjs")).href;

function spoofedMatchmake(port: number, i: number): Promise<void> {
  const spoof = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  return new Promise((resolve) => {
    const req = http.request(
      { host: "127.0.0.1", port, method: "POST", path: "/matchmake/joinOrCreate/lobby", agent: false, headers: { "content-type": "application/json", "x-forwarded-for": spoof, "x-real-ip": spoof } },
      (res) => {
        res.resume();
        res.on("end", resolve);
      },
    );
    req.on("error", () => resolve());
    req.end("{}");
  });
}

/** REQUESTS requests, spoofing addresses first … first + REQUESTS - 1. */
async function flood(port: number, first: number): Promise<void> {
  let next = first;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < first + REQUESTS) await spoofedMatchmake(port, next++);
    }),
  );
}

async function run(label: string, env: Record<string, string>, redis?: { client: Redis; prefix: string }): Promise<string> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "spoof-bench-"));
  const server = startNode({
    name: label,
    args: ["--import", TSX, "src/server/index.ts"],
    cwd: ROOT,
    env: { PORT: String(port), LOG_LEVEL: "warn", SQLITE_PATH: path.join(dataDir, "users.sqlite"), ...env },
  });
  try {
    await waitForHttp(server, `http://127.0.0.1:${port}/healthz`);
    await flood(port, 0); // warm-up: JIT, pools, the lobby
    await sleep(2000);
    const keyCount = async () => (redis ? (await redis.client.keys(`${redis.prefix}*`)).length : 0);
    const usedMemory = async () => (redis ? Number(/used_memory:(\d+)/.exec(await redis.client.info("memory"))![1]) : 0);
    const before = { rss: rssMiB(server.pid)!, keys: await keyCount(), used: await usedMemory() };
    await flood(port, REQUESTS); // addresses the warm-up did not use
    await sleep(2000);
    const after = { rss: rssMiB(server.pid)!, keys: await keyCount(), used: await usedMemory() };
    const parts = [`${label}: ${REQUESTS} spoofed requests (after ${REQUESTS} of warm-up): RSS ${before.rss.toFixed(1)} → ${after.rss.toFixed(1)} MiB (${(after.rss - before.rss).toFixed(1)} MiB)`];
    if (redis) parts.push(`Redis used_memory +${((after.used - before.used) / 1024 / 1024).toFixed(1)} MiB, keys under the prefix ${before.keys} → ${after.keys}`);
    return parts.join("; ");
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const lines = [await run("embedded (SQLite + memory)", {})];
  const redisUrl = process.env.TEST_REDIS_URL;
  const databaseUrl = process.env.TEST_DATABASE_URL;
  if (redisUrl && databaseUrl) {
    const prefix = `spoof-bench-${Date.now()}:`;
    const client = new Redis(redisUrl);
    const db = await createTestDatabase(databaseUrl);
    try {
      lines.push(await run("PostgreSQL + Redis", { REDIS_URL: redisUrl, DATABASE_URL: db.url, CACHE_KEY_PREFIX: prefix }, { client, prefix }));
      const leftovers = await client.keys(`${prefix}*`);
      if (leftovers.length > 0) await client.del(...leftovers);
    } finally {
      client.disconnect();
      await db.drop();
    }
  }
  console.log(`server code: ${ROOT}\n${lines.join("\n")}`);
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => stopAll());
