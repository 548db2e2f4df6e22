/**
 * Deleting an account while its writes are in flight (issue 48, item 6): a stream of soft-currency
 * purchases, mail claims and rewarded-ad callbacks of one player over two server processes
 * (PostgreSQL + Redis, MongoDB + Redis; one process on SQLite) while `DELETE /api/users/me` runs.
 * After its 200 the store, read directly, holds nothing of the player (every table or collection
 * that names a user: ledger entries and claims, wallet and inventory with them, mail, mail claims,
 * ad views, orders, identities, the user), and every later request of the player is refused with
 * 403 `user_disabled`, on either process. Before the erase was marked and fenced, PostgreSQL kept
 * 16 claims, 18 entries, 3 ad views and 3 mail claims of the player, MongoDB 19 claims, 20 entries,
 * its head, 5 ad slots and watches, 2 views and 3 mail claims. (On one SQLite process this stream
 * left nothing even before: the fence's store-level test, erase-fence.contract, shows it there.)
 * And an erase whose process was killed right after it marked the user is finished by the sweep
 * the next start runs: nothing of the player left, its old token refused with `user_disabled`.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import mongoose from "mongoose";
import { Client as PgClient } from "pg";
import { createEconomyStore } from "../../src/adapters/store/create-economy-store";
import type { AppConfig } from "../../src/config/config";
import { simulatorPlatformEnv, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { runAdmin } from "../support/admin-cli";
import { storeBackends } from "../support/backends";
import { simulatorRewardEnv } from "../support/rewards";
import { startServerProcesses, type ServerProcess } from "../support/server-process";

const JWT = "erase-in-flight-tests-jwt-secret-0123456789abc";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Bookkeeping that outlives the erase on purpose: the mark in-flight writes check (a day, then forgotten). */
const ERASE_MARKS = "user_erasures";

interface Answer {
  what: string;
  sentAt: number;
  status: number;
  code?: string;
}

/** Every row or document that names the user, by table or collection (the erase marks aside). */
async function leftovers(databaseUrl: string | undefined, sqlitePath: string, userId: string): Promise<Record<string, number>> {
  const found: Record<string, number> = {};
  if (databaseUrl?.startsWith("mongodb")) {
    const connection = await mongoose.createConnection(databaseUrl, { serverSelectionTimeoutMS: 5000 }).asPromise();
    try {
      for (const { name } of await connection.db!.listCollections().toArray()) {
        if (name === ERASE_MARKS) continue;
        // Keys such as "<app>:<user>:<seq>" carry the user in `_id`.
        const filter = { $or: [{ userId }, { _id: userId as unknown as mongoose.Types.ObjectId }, { _id: { $regex: userId } }] };
        const n = await connection.db!.collection(name).countDocuments(filter as never);
        if (n > 0) found[name] = n;
      }
    } finally {
      await connection.close();
    }
    return found;
  }
  if (databaseUrl?.startsWith("postgres")) {
    const client = new PgClient({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ table_name: string; column_name: string }>(
        "select table_name, column_name from information_schema.columns where table_schema = 'public' and (column_name = 'user_id' or (table_name = 'users' and column_name = 'id'))",
      );
      for (const { table_name: table, column_name: column } of rows) {
        if (table === ERASE_MARKS) continue;
        const { rows: counted } = await client.query<{ n: string }>(`select count(*) as n from "${table}" where "${column}" = $1`, [userId]);
        if (Number(counted[0].n) > 0) found[table] = Number(counted[0].n);
      }
    } finally {
      await client.end();
    }
    return found;
  }
  const db = new Database(sqlitePath, { readonly: true });
  try {
    const tables = (db.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map((t) => t.name);
    for (const table of tables) {
      if (table === ERASE_MARKS) continue;
      const columns = (db.prepare(`pragma table_info("${table}")`).all() as { name: string }[]).map((c) => c.name);
      const column = table === "users" ? "id" : columns.includes("user_id") ? "user_id" : null;
      if (!column) continue;
      const n = (db.prepare(`select count(*) as n from "${table}" where "${column}" = ?`).get(userId) as { n: number }).n;
      if (n > 0) found[table] = n;
    }
  } finally {
    db.close();
  }
  return found;
}

for (const backend of storeBackends) {
  const twoProcesses = !backend.name.startsWith("embedded");
  describe(`erasing an account while its writes are in flight (${twoProcesses ? "two processes" : "one process"}): ${backend.name}`, function () {
    this.timeout(180_000);
    let sim: RunningSimulator;
    let env: Record<string, string>;
    let release: () => Promise<void>;
    let tmp: string;
    let servers: ServerProcess[] = [];

    before(async () => {
      sim = await startSimulator({ port: 0 });
      const prepared = await backend.prepare();
      release = prepared.release;
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-erase-"));
      env = {
        NODE_ENV: "test",
        JWT_SECRET: JWT,
        LOG_LEVEL: "warn",
        SQLITE_PATH: path.join(tmp, "users.sqlite"),
        DATABASE_QUERY_TIMEOUT_MS: "10000",
        // The stream is one player's from one address: the rate limits are not under test here.
        RATE_LIMIT_ENABLED: "false",
        ...simulatorPlatformEnv(sim.url),
        ...simulatorRewardEnv(),
        ...prepared.env,
      };
      servers = await startServerProcesses(env, twoProcesses ? 2 : 1);
    });
    after(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await sim?.close();
      await release?.();
      if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    });

    const call = async (server: ServerProcess, token: string, method: string, route: string, body?: unknown) => {
      const r = await fetch(`${server.baseUrl}${route}`, {
        method,
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: r.status, body: (await r.json()) as { data: any } };
    };

    it("after the 200 nothing of the player is stored, and every later request is refused 403 user_disabled", async () => {
      const player = `erase${Date.now().toString(36)}`;
      const login = await fetch(`${servers[0].baseUrl}/api/minigame/wechat/login?jsCode=${player}`);
      const { token, openid, user } = ((await login.json()) as { data: { token: string; openid: string; user: { id: string } } }).data;
      const admin = (...args: string[]) => runAdmin({ ...process.env, ...env, NODE_ENV: "development" }, ...args);
      const seeded = await Promise.all([
        admin("grant", user.id, "--grant-id", `seed-${user.id}`, "--currency", "gems=40"),
        ...[1, 2, 3].map((n) => admin("mail", "send", "--to", user.id, "--title", `gift ${n}`, "--currency", "gems=1", "--mail-id", `m${n}-${user.id}`)),
      ]);
      for (const result of seeded) assert.equal(result.status, 0, result.stderr);
      const mailIds = [1, 2, 3].map((n) => `m${n}-${user.id}`);

      const answers: Answer[] = [];
      const send = async (what: string, request: () => Promise<{ status: number; body: { data: any } }>) => {
        const sentAt = Date.now();
        const { status, body } = await request();
        answers.push({ what, sentAt, status, code: body?.data?.code });
      };
      const server = (i: number) => servers[i % servers.length];
      let streaming = true;
      let n = 0;
      // 16 purchases at a time, alternating processes, until well after the erase answered.
      const purchases = Array.from({ length: 16 }, async () => {
        while (streaming) {
          const i = n++;
          await send("purchase", () => call(server(i), token, "POST", "/api/economy/purchases", { purchaseId: `p-${i}`, itemId: "potion" }));
        }
      });
      // Until the first purchase is made (a fixed pause was too short for FerretDB on a loaded
      // machine: the erase came before any purchase and the test proved nothing).
      const started = Date.now();
      while (!answers.some((a) => a.what === "purchase" && a.status === 201)) {
        assert.ok(Date.now() - started < 30_000, `no purchase made: ${JSON.stringify(answers.slice(0, 3))}`);
        await sleep(50);
      }
      // The mail claims and ad callbacks go out with the DELETE, so they are in flight during it.
      const notify = (i: number) => `${server(i).baseUrl}/api/minigame/wechat/ad-reward`;
      const pushes = Array.from({ length: 6 }, (_, i) =>
        fetch(`${sim.url}/__simulator/ad-reward`, {
          method: "POST",
          body: JSON.stringify({ platform: "wechat", openid, adUnitId: "adunit-example", watchId: `w${i}`, notifyUrl: notify(i) }),
        }).then((r) => r.status),
      );
      const claims = mailIds.flatMap((mailId, i) => [0, 1].map((k) => send("mail claim", () => call(server(i + k), token, "POST", `/api/mail/${mailId}/claim`))));
      const erased = await call(servers[0], token, "DELETE", "/api/users/me");
      const erasedAt = Date.now();
      assert.equal(erased.status, 200, JSON.stringify(erased.body));
      await sleep(500);
      streaming = false;
      await Promise.all([...purchases, ...claims, ...pushes]);
      const later = await Promise.all(
        servers.flatMap((s, i) => [
          call(s, token, "GET", "/api/economy/wallet").then(({ status, body }) => ({ what: `wallet on ${i}`, sentAt: Date.now(), status, code: body?.data?.code })),
          call(s, token, "POST", "/api/economy/purchases", { purchaseId: `late-${i}`, itemId: "potion" }).then(({ status, body }) => ({ what: `purchase on ${i}`, sentAt: Date.now(), status, code: body?.data?.code })),
          call(s, token, "POST", `/api/mail/${mailIds[0]}/claim`).then(({ status, body }) => ({ what: `claim on ${i}`, sentAt: Date.now(), status, code: body?.data?.code })),
        ]),
      );

      const sentLater = [...answers.filter((a) => a.sentAt > erasedAt), ...later];
      assert.ok(sentLater.length > servers.length * 3, "the stream went on after the erase");
      assert.deepEqual(
        sentLater.filter((a) => a.status !== 403 || a.code !== "user_disabled"),
        [],
        "a request sent after the erase answered was not refused with user_disabled",
      );
      assert.ok(answers.some((a) => a.what === "purchase" && a.status === 201 && a.sentAt < erasedAt), "purchases were made before the erase");
      assert.deepEqual(await leftovers(env.DATABASE_URL, env.SQLITE_PATH, user.id), {});
      // Nothing in flight lands later either.
      await sleep(1000);
      assert.deepEqual(await leftovers(env.DATABASE_URL, env.SQLITE_PATH, user.id), {});
    });

    it("an erase killed (kill -9) right after its mark is finished by the next start's sweep", async () => {
      const login = await fetch(`${servers[0].baseUrl}/api/minigame/wechat/login?jsCode=killed${Date.now().toString(36)}`);
      const { token, user } = ((await login.json()) as { data: { token: string; user: { id: string } } }).data;
      const bought = await call(servers[0], token, "POST", "/api/economy/purchases", { purchaseId: "before-kill", itemId: "potion" });
      assert.equal(bought.status, 402, JSON.stringify(bought.body));
      await Promise.all(servers.map((s) => s.stop()));
      // What the erase had done when it was killed: the mark, nothing else.
      const url = env.DATABASE_URL;
      const config: AppConfig["store"] = url?.startsWith("mongodb")
        ? { kind: "mongodb", url, connectTimeoutMs: 2000, acquireTimeoutMs: 5000, queryTimeoutMs: 5000 }
        : url
          ? { kind: "postgres", url, connectTimeoutMs: 2000, acquireTimeoutMs: 5000, queryTimeoutMs: 5000 }
          : { kind: "sqlite", path: env.SQLITE_PATH, synchronous: "FULL" };
      const store = await createEconomyStore(config);
      try {
        await store.erasures.mark(user.id, new Date().toISOString());
      } finally {
        await store.close();
      }
      assert.notDeepEqual(await leftovers(url, env.SQLITE_PATH, user.id), {});

      servers = await startServerProcesses(env, twoProcesses ? 2 : 1);
      const deadline = Date.now() + 20_000;
      while (Object.keys(await leftovers(url, env.SQLITE_PATH, user.id)).length > 0) {
        assert.ok(Date.now() < deadline, "the start's sweep did not finish the erase");
        await sleep(200);
      }
      for (const s of servers) {
        const later = await call(s, token, "GET", "/api/economy/wallet");
        assert.deepEqual([later.status, later.body.data?.code], [403, "user_disabled"]);
      }
    });
  });
}
