/**
 * Experiment (issue 56, "the session write"): the client CPU of a login's one atomic session write
 * (three keys written with their TTLs and the replaced values read back, plus the two earlier key
 * spellings read: RedisCache.setMany's script, what a login sends) beside what the same write
 * costs as plain commands without its guarantees: a MULTI of SET … GET (Redis 6.2+), and the three
 * SETs alone (no replaced values: a login could no longer tell another device it was logged out).
 * Redis at BENCH_REDIS_URL (default the local one), keys under a prefix of their own, removed after.
 * `node --import tsx bench/experiments/session-write.ts` (C=concurrency, N=writes).
 */
import crypto from "node:crypto";
import Redis from "ioredis";
import { RedisCache } from "../../src/adapters/cache/redis-cache";

const URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const CONCURRENCY = Number(process.env.C ?? 50);
const WRITES = Number(process.env.N ?? 20_000);
const prefix = `exp-session-${crypto.randomBytes(3).toString("hex")}:`;
const token = () => crypto.randomBytes(120).toString("base64url");

async function main() {
  const cache = new RedisCache(URL, { keyPrefix: prefix });
  const plain = new Redis(URL, { keyPrefix: prefix, enableAutoPipelining: true });
  const keysOf = (i: number) => {
    const user = `{u${i % 5000}:default}`;
    return { access: `access:${user}`, refresh: `refresh:${user}`, sessionKey: `session_key:${user}`, earlier: [`access:u${i % 5000}:default`, `refresh:u${i % 5000}:default`] };
  };
  const writes: Record<string, (i: number) => Promise<unknown>> = {
    "the server's script (3 SETs with TTLs + 5 values read back, atomic)": (i) => {
      const k = keysOf(i);
      return cache.setMany(
        [
          { key: k.access, value: token(), ttlSec: 7200 },
          { key: k.refresh, value: token(), ttlSec: 2_592_000 },
          { key: k.sessionKey, value: "c2Vzc2lvbi1rZXk", ttlSec: 7200 },
        ],
        k.earlier,
      );
    },
    "MULTI of SET … GET (replaced values, no earlier spellings)": (i) => {
      const k = keysOf(i);
      return plain.multi().set(k.access, token(), "EX", 7200, "GET").set(k.refresh, token(), "EX", 2_592_000, "GET").set(k.sessionKey, "c2Vzc2lvbi1rZXk", "EX", 7200, "GET").exec();
    },
    "three SETs, nothing read back (not atomic)": (i) => {
      const k = keysOf(i);
      return Promise.all([plain.set(k.access, token(), "EX", 7200), plain.set(k.refresh, token(), "EX", 2_592_000), plain.set(k.sessionKey, "c2Vzc2lvbi1rZXk", "EX", 7200)]);
    },
  };
  let n = 0;
  for (let rep = 0; rep < 3; rep++) {
    for (const [label, write] of Object.entries(writes)) {
      const cpu = process.cpuUsage();
      const started = process.hrtime.bigint();
      let left = WRITES;
      await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
        while (left-- > 0) await write(n++);
      }));
      const used = process.cpuUsage(cpu);
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      console.log(`${label}: ${((used.user + used.system) / WRITES).toFixed(1)} µs client CPU per login, ${((WRITES / wallMs) * 1000).toFixed(0)} writes/s`);
    }
  }
  const stale = await plain.keys(`${prefix}*`);
  for (let i = 0; i < stale.length; i += 500) await plain.del(...stale.slice(i, i + 500).map((k) => k.slice(prefix.length)));
  await plain.quit();
  await cache.close?.();
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
