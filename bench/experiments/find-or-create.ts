/**
 * Experiment (issue 40, the find-or-create lead): what the identity lookup of a new player costs
 * the server, batched per turn as in a login burst, beside the creation that follows it.
 * Runs the real PostgreSQL user store (BENCH_DATABASE_URL, default the local test database); CPU of
 * this process per new player, for each step alone. It leaves its throwaway players (exp…) in that
 * database: point it at a scratch one. `node --import tsx bench/experiments/find-or-create.ts`
 */
import crypto from "node:crypto";
import { createUserStore } from "../../src/adapters/store/create-user-store";

const CONCURRENCY = Number(process.env.C ?? 50);
const ROUNDS = Number(process.env.R ?? 200);

async function main() {
  const store = await createUserStore({ kind: "postgres", url: process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test", connectTimeoutMs: 1000, acquireTimeoutMs: 5000, queryTimeoutMs: 5000 } as never);
  const run = crypto.randomBytes(4).toString("hex");
  let n = 0;
  const key = () => ({ platform: "wechat", platformId: `exp${run}x${n++}` });
  const measure = async (label: string, op: (k: { platform: string; platformId: string }) => Promise<unknown>, keys: { platform: string; platformId: string }[][]) => {
    const cpu = process.cpuUsage();
    const t = process.hrtime.bigint();
    for (const round of keys) await Promise.all(round.map(op));
    const used = process.cpuUsage(cpu);
    const total = keys.length * CONCURRENCY;
    console.log(`${label}: ${(((used.user + used.system) / total)).toFixed(1)} µs CPU per player, ${(Number(process.hrtime.bigint() - t) / 1e3 / keys.length).toFixed(0)} µs wall per round of ${CONCURRENCY}`);
  };
  for (let rep = 0; rep < 3; rep++) {
    const rounds = Array.from({ length: ROUNDS }, () => Array.from({ length: CONCURRENCY }, key));
    // The lookup a new player's login makes first (finds nothing).
    await measure("lookup (new players)", (k) => store.findByIdentity(k as never), rounds);
    // The creation that follows it.
    await measure("create", (k) => {
      const id = crypto.randomUUID();
      return store.createUser({ id, username: `u_${k.platformId}`, email: `${k.platformId}@exp.local`, passwordHash: "x", openid: k.platformId, createdAt: new Date().toISOString() }, [k as never]);
    }, rounds);
  }
  await store.close();
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
