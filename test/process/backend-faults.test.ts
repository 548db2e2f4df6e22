/**
 * The server as a real process, reaching PostgreSQL and Redis through TCP proxies this test owns,
 * under a steady load of logins and authenticated reads. Each backing service is cut (every
 * connection reset), then silenced (nothing passes, nothing is closed) twice: once with the bytes
 * held and delivered on restore, once with them lost. It is restored after each fault.
 * The process must stay up, every failed request must be a 503 `service_unavailable` envelope,
 * the first 503 must come soon after the fault, and requests must succeed again after the restore
 * without a restart. The shared servers themselves are never stopped.
 */
import assert from "node:assert/strict";
import { startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { simulatorPlatformEnv, TEST_JWT_SECRET } from "../support/app-harness";
import { createTestDatabase, type TestDatabase } from "../support/postgres";
import { startServerProcess, type ServerProcess } from "../support/server-process";
import { testDatabaseUrl, testRedisUrl, uniquePrefix } from "../support/services";
import { measureFault, printFaultTimings, startReaderLoad, type FaultTiming, type Load } from "../support/fault-load";
import { TcpProxy } from "../support/tcp-proxy";

(testDatabaseUrl && testRedisUrl ? describe : describe.skip)("faults: PostgreSQL and Redis drop or go silent under load", function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let simulator: RunningSimulator;
  let pgProxy: TcpProxy;
  let redisProxy: TcpProxy;
  let server: ServerProcess;
  let load: Load;
  const timings: Record<string, FaultTiming> = {};

  before(async () => {
    database = await createTestDatabase(testDatabaseUrl!);
    simulator = await startSimulator({ port: 0 });
    const pgUrl = new URL(database.url);
    pgProxy = await TcpProxy.start(pgUrl.hostname, Number(pgUrl.port || 5432));
    pgUrl.host = `127.0.0.1:${pgProxy.port}`;
    const redisUrl = new URL(testRedisUrl!);
    redisProxy = await TcpProxy.start(redisUrl.hostname, Number(redisUrl.port || 6379));
    redisUrl.host = `127.0.0.1:${redisProxy.port}`;
    server = await startServerProcess({
      NODE_ENV: "test",
      JWT_SECRET: TEST_JWT_SECRET,
      LOG_LEVEL: "warn",
      DATABASE_URL: pgUrl.toString(),
      REDIS_URL: redisUrl.toString(),
      CACHE_KEY_PREFIX: uniquePrefix("faults"),
      RATE_LIMIT_IP_MAX: "1000000",
      ...simulatorPlatformEnv(simulator.url),
    });
    load = await startReaderLoad(server, "faultreader");
  });

  after(async () => {
    await load?.stop();
    await server?.stop();
    await pgProxy?.close();
    await redisProxy?.close();
    await simulator?.close();
    await database?.drop();
    printFaultTimings(timings);
  });

  /** Cut, then silent with bytes held (a short partition), then silent with bytes lost for good. */
  async function cutAndSilence(name: string, proxy: TcpProxy): Promise<FaultTiming[]> {
    const cut = await measureFault(load, server, () => proxy.cut(), () => proxy.restore(), `a ${name} cut`);
    const held = await measureFault(load, server, () => proxy.silence("hold"), () => proxy.restore(), `a silent ${name} (bytes held)`);
    const dropped = await measureFault(load, server, () => proxy.silence("drop"), () => proxy.restore(), `a silent ${name} (bytes dropped)`);
    Object.assign(timings, { [`${name} cut`]: cut, [`${name} silent, held`]: held, [`${name} silent, dropped`]: dropped });
    return [cut, held, dropped];
  }

  it("keeps serving through PostgreSQL cut and silenced, failing fast with 503 and recovering by itself", async () => {
    const [cut, held, dropped] = await cutAndSilence("PostgreSQL", pgProxy);
    assert.ok(cut.firstFailureMs < 2000, `first 503 ${cut.firstFailureMs} ms after the cut`);
    // About one second by design (connect and query timeouts); the margin is for a loaded machine.
    // Blackholed (packets dropped, not refused): the first 503 within a second, as the issue asks.
    for (const silent of [held, dropped]) assert.ok(silent.firstFailureMs < 1000, `first 503 ${silent.firstFailureMs} ms into the silence`);
  });

  it("keeps serving through Redis cut and silenced, failing fast with 503 and recovering by itself", async () => {
    const [cut, held, dropped] = await cutAndSilence("Redis", redisProxy);
    assert.ok(cut.firstFailureMs < 2000, `first 503 ${cut.firstFailureMs} ms after the cut`);
    // The cache's watchdog (src/adapters/cache/redis-watchdog.ts): a PING every 200 ms, 400 ms to answer.
    for (const silent of [held, dropped]) {
      assert.ok(silent.firstFailureMs < 1000, `first 503 ${silent.firstFailureMs} ms into the silence`);
      assert.ok(silent.recoveryMs < 1000, `recovered ${silent.recoveryMs} ms after the silence ended`);
    }
  });

  it("answered every failed request with a 503 service_unavailable envelope, none hung, and never exited", async () => {
    assert.equal(server.exit(), null, server.output().slice(-4000));
    const failed = load.samples.filter((s) => s.status !== 200);
    assert.ok(failed.length > 0, "the faults made some requests fail");
    const wrong = failed.filter(
      (s) => s.status !== 503 || s.body?.success !== false || typeof s.body?.message !== "string" || s.body?.data?.code !== "service_unavailable",
    );
    assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} of ${failed.length} failures were not a 503 envelope`);
    const slowest = Math.max(...load.samples.map((s) => s.ended - s.started));
    assert.ok(slowest < 4000, `the slowest request took ${slowest} ms`);
    const alarming = server.output().split("\n").filter((line) => /uncaught|unhandled/i.test(line));
    assert.deepEqual(alarming.map((line) => line.slice(0, 300)), []);
  });
});
