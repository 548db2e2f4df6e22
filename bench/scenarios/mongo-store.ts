/**
 * The mongo-store step: the MongoDB user store's hot and erase paths with many users stored, on
 * FerretDB's SQLite and PostgreSQL handlers (a FerretDB of its own for each, the PostgreSQL one in
 * a database of its own). FerretDB's SQLite handler pushes down no filter but `{ _id }`: anything
 * else reads the whole collection, so a path that filtered on `userId` grew with the user count.
 * The store's paths reach documents by `_id` alone; the last column measures the old erase's
 * filter shape (`deleteMany({ userId })` on one claim collection) for comparison.
 */
import crypto from "node:crypto";
import mongoose from "mongoose";
import { MongoUserStore } from "../../src/adapters/store/mongo/mongo-user-store";
import { openMongoConnection } from "../../src/adapters/store/mongo/open-mongo";
import { ferretdbBinary, startOwnFerretdb, type FerretdbHandler } from "../../test/support/ferretdb";
import { log, type Context } from "../lib/context";
import { isAborting } from "../lib/lifecycle";
import { section, simpleTable, skippedSection } from "../lib/report";

const SEED_BATCH = 1000;
const SAMPLES = 30;
/** Each measurement stops after this long (at least 3 samples): on the SQLite handler one erase at 100k users takes seconds. */
const MEASURE_BUDGET_MS = 40_000;

export async function mongoStoreStep(ctx: Context): Promise<string> {
  const users = ctx.flags.mongoUsers;
  const title = `MongoDB store at ${users.toLocaleString("en")} users: login and erase on FerretDB's SQLite and PostgreSQL handlers`;
  const binary = ferretdbBinary();
  if (!binary) return skippedSection(title, "FerretDB is not built here (bash scripts/test-services.sh builds it)");
  const rows: string[][] = [];
  for (const handler of ["sqlite", "postgresql"] as FerretdbHandler[]) {
    if (isAborting()) break;
    rows.push(await measureHandler(binary, handler, users));
  }
  const table = simpleTable(
    ["FerretDB handler", "users", "seed s", "returning login p50 / p99 ms", "first login p50 / p99 ms", "erase p50 / p99 ms", "old erase filter (deleteMany {userId}) p50 ms"],
    rows,
  );
  return section(
    title,
    [
      `Each handler gets a FerretDB of its own, seeded with ${users.toLocaleString("en")} users as the store writes them (user, identity, username and email documents), then the store is timed in process: a returning player's lookup (findByIdentity), a first login (createUser) and an erase (deleteUser), up to ${SAMPLES} of each (at least 3, for at most ${MEASURE_BUDGET_MS / 1000} s), one at a time. The last column times one collection's delete by \`userId\`, the filter the erase used before it reached every document by \`_id\`.`,
    ],
    table,
  );
}

async function measureHandler(binary: string, handler: FerretdbHandler, count: number): Promise<string[]> {
  const ferretdb = await startOwnFerretdb(binary, handler);
  const timeouts = { connectTimeoutMs: 5000, acquireTimeoutMs: 60_000, queryTimeoutMs: 120_000 };
  const connection = await openMongoConnection(ferretdb.url("bench"), timeouts, 10);
  const store = new MongoUserStore(connection, { sweepIntervalMs: 0 });
  try {
    await store.migrate();
    log(`mongo-store (${handler}): seeding ${count} users`);
    const seeded = Date.now();
    const ids = await seed(connection, count);
    const seedSec = (Date.now() - seeded) / 1000;
    const returning = await time(SAMPLES, (i) => store.findByIdentity({ platform: "wechat", platformId: `bench-${ids[(i * 7919) % ids.length].n}` }));
    const fresh = await time(SAMPLES, () => {
      const s = crypto.randomBytes(6).toString("hex");
      const draft = { id: crypto.randomUUID(), username: `mg_${s}`, email: `${s}@bench.invalid`, passwordHash: "h", openid: `o-${s}`, createdAt: new Date().toISOString() };
      return store.createUser(draft, [{ platform: "wechat", platformId: `fresh-${s}` }]);
    });
    const erase = await time(SAMPLES, (i) => store.deleteUser(ids[i].id));
    const oldShape = await time(5, (i) => connection.collection("user_emails").deleteMany({ userId: ids[SAMPLES + i].id }));
    const row = [handler, count.toLocaleString("en"), seedSec.toFixed(0), pair(returning), pair(fresh), pair(erase), oldShape[0].toFixed(0)];
    log(`mongo-store (${handler}): ${row.join(" | ")}`);
    return row;
  } finally {
    await store.close().catch(() => undefined);
    await ferretdb.remove();
  }
}

/** Users as the store writes them, in batches; returns their ids and numbers. */
async function seed(connection: mongoose.Connection, count: number): Promise<{ id: string; n: number }[]> {
  const ids: { id: string; n: number }[] = [];
  const at = new Date();
  for (let start = 0; start < count; start += SEED_BATCH) {
    const batch = Array.from({ length: Math.min(SEED_BATCH, count - start) }, (_, i) => ({ id: crypto.randomUUID(), n: start + i }));
    ids.push(...batch);
    const user = ({ id, n }: { id: string; n: number }) => ({
      _id: id, username: `mg_bench_${n}`, usernameNorm: `mg_bench_${n}`, email: `bench_${n}@bench.invalid`, emailNorm: `bench_${n}@bench.invalid`,
      passwordHash: "h", passwordSetAt: null, nickname: null, avatar: null, openid: `bench-${n}`, guildId: null, status: 1,
      disabledReason: null, disabledUntil: null, createdAt: at, updatedAt: at, version: 1, deletingAt: null, identityKeys: [`wechat:bench-${n}`],
    });
    await Promise.all([
      connection.collection("users").insertMany(batch.map(user) as never[]),
      connection.collection("user_identities").insertMany(batch.map(({ id, n }) => ({ _id: `wechat:bench-${n}`, userId: id, platform: "wechat", platformId: `bench-${n}`, createdAt: at, at })) as never[]),
      connection.collection("user_usernames").insertMany(batch.map(({ id, n }) => ({ _id: `mg_bench_${n}`, userId: id, at })) as never[]),
      connection.collection("user_emails").insertMany(batch.map(({ id, n }) => ({ _id: `bench_${n}@bench.invalid`, userId: id, at })) as never[]),
    ]);
  }
  return ids;
}

/** Milliseconds of each of `n` sequential runs, sorted. */
async function time(n: number, run: (i: number) => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  const deadline = Date.now() + MEASURE_BUDGET_MS;
  for (let i = 0; i < n && !isAborting() && (i < 3 || Date.now() < deadline); i++) {
    const started = process.hrtime.bigint();
    await run(i);
    ms.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return ms.sort((a, b) => a - b);
}

function pair(sorted: number[]): string {
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return sorted.length === 0 ? "–" : `${at(0.5).toFixed(1)} / ${at(0.99).toFixed(1)}`;
}
