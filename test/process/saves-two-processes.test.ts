/**
 * Cloud saves over two server processes on one database (PostgreSQL + Redis, MongoDB + Redis):
 * 100 concurrent writes of one object with the same version, spread over both processes → exactly
 * one 200 and 99 × 409, and both processes read the winner's value; three batches racing over the
 * same objects → one applies whole; a batch with one stale version writes nothing.
 * (SQLite serves one process; its concurrent writers are in the store's contract suite and e2e.)
 */
import assert from "node:assert/strict";
import { simulatorPlatformEnv, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { storeBackends } from "../support/backends";
import { startServerProcesses, type ServerProcess } from "../support/server-process";

const JWT = "saves-two-process-tests-jwt-secret-0123456789";
const backends = storeBackends.filter((b) => !b.name.startsWith("embedded"));

for (const backend of backends) {
  describe(`cloud saves over two processes: ${backend.name}`, function () {
    this.timeout(180_000);
    let sim: RunningSimulator;
    let release: () => Promise<void>;
    let servers: ServerProcess[] = [];

    before(async () => {
      sim = await startSimulator({ port: 0 });
      const prepared = await backend.prepare();
      release = prepared.release;
      const env = { NODE_ENV: "test", JWT_SECRET: JWT, LOG_LEVEL: "warn", DATABASE_QUERY_TIMEOUT_MS: "10000", RATE_LIMIT_USER_MAX: "100000", ...simulatorPlatformEnv(sim.url), ...prepared.env };
      servers = await startServerProcesses(env, 2);
    });
    after(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await sim?.close();
      await release?.();
    });

    const call = (server: ServerProcess, token: string, method: string, route: string, body?: unknown) =>
      fetch(`${server.baseUrl}${route}`, {
        method,
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { data: any } }));

    async function login(): Promise<string> {
      const res = await fetch(`${servers[0].baseUrl}/api/minigame/wechat/login?jsCode=sv${Date.now().toString(36)}${Math.random()}`);
      return ((await res.json()) as { data: { token: string } }).data.token;
    }

    it("100 concurrent writes of one object with the same version over both processes: one 200, 99 × 409, the winner's value", async () => {
      const token = await login();
      const v = (await call(servers[0], token, "PUT", "/api/saves/slots/race", { value: { n: -1 } })).body.data.version;
      // Each process has verified the token once (its user cache), so the burst measures the saves, not 100 user lookups.
      for (const server of servers) assert.equal((await call(server, token, "GET", "/api/saves/slots/race")).status, 200);
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => call(servers[i % 2], token, "PUT", "/api/saves/slots/race", { value: { n: i }, version: v })));
      const winners = results.map((r, i) => (r.status === 200 ? i : -1)).filter((i) => i >= 0);
      assert.equal(winners.length, 1, JSON.stringify(results.filter((r) => r.status !== 409).map((r) => r.body)));
      const reported = results.filter((r) => r.status === 409).map((r) => r.body.data.version);
      assert.deepEqual([reported.length, new Set(reported).size, reported[0]], [99, 1, results[winners[0]].body.data.version], JSON.stringify({ v, reported, others: results.filter((r) => r.status !== 409 && r.status !== 200).slice(0, 3) }));
      for (const server of servers) assert.deepEqual((await call(server, token, "GET", "/api/saves/slots/race")).body.data.value, { n: winners[0] });
    });

    it("three batches over the same objects from both processes: one applies whole; one stale version writes nothing", async () => {
      const token = await login();
      const made = await call(servers[0], token, "POST", "/api/saves/batch", { writes: ["a", "b", "c"].map((key) => ({ collection: "state", key, value: { by: "none" } })) });
      const versions: number[] = made.body.data.written.map((w: { version: number }) => w.version);
      const batch = (by: string) => ({ writes: ["a", "b", "c"].map((key, i) => ({ collection: "state", key, value: { by }, version: versions[i] })) });
      const results = await Promise.all(["x", "y", "z"].map((by, i) => call(servers[i % 2], token, "POST", "/api/saves/batch", batch(by))));
      assert.equal(results.filter((r) => r.status === 200).length, 1, JSON.stringify(results.map((r) => [r.status, r.body.data])));
      const read = await call(servers[1], token, "POST", "/api/saves/batch", { reads: ["a", "b", "c"].map((key) => ({ collection: "state", key })) });
      const values = read.body.data.objects.map((o: { value: { by: string } }) => o.value.by);
      assert.equal(new Set(values).size, 1);
      assert.notEqual(values[0], "none");

      const now: number[] = read.body.data.objects.map((o: { version: number }) => o.version);
      const stale = { writes: ["a", "b", "c"].map((key, i) => ({ collection: "state", key, value: { by: "stale" }, version: i === 2 ? now[i] - 1 : now[i] })) };
      assert.equal((await call(servers[0], token, "POST", "/api/saves/batch", stale)).status, 409);
      const after = await call(servers[1], token, "POST", "/api/saves/batch", { reads: ["a", "b", "c"].map((key) => ({ collection: "state", key })) });
      assert.deepEqual(after.body.data.objects.map((o: { value: { by: string } }) => o.value.by), values);
    });
  });
}
