/**
 * The server as a real process on the MongoDB store, against a FerretDB of this test's own reached
 * through a TCP proxy this test owns, under a steady load of logins and authenticated reads. The
 * connection is cut, silenced with the bytes held, silenced with them lost, and the server itself
 * is stopped and started again. As with PostgreSQL (backend-faults.test.ts): the process stays up,
 * every failed request is a 503 `service_unavailable` envelope, the first within a second of the
 * fault, `/readyz` says not ready meanwhile, and service resumes by itself after each restore.
 */
import assert from "node:assert/strict";
import { startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { simulatorPlatformEnv, TEST_JWT_SECRET } from "../support/app-harness";
import { declareBackend } from "../support/backend-report";
import { measureFault, printFaultTimings, startReaderLoad, waitFor, type FaultTiming, type Load } from "../support/fault-load";
import { ferretdbBinary, startOwnFerretdb, type OwnFerretdb } from "../support/ferretdb";
import { startServerProcess, type ServerProcess } from "../support/server-process";
import { TcpProxy } from "../support/tcp-proxy";

const binary = ferretdbBinary();
declareBackend({
  name: "MongoDB faults (own FerretDB)",
  titles: /faults: MongoDB/,
  skipReason: binary ? undefined : "FerretDB is not built here (bash scripts/test-services.sh builds it)",
});

(binary ? describe : describe.skip)("faults: MongoDB (FerretDB) drops, goes silent or stops under load", function () {
  this.timeout(120_000);
  let ferretdb: OwnFerretdb;
  let proxy: TcpProxy;
  let simulator: RunningSimulator;
  let server: ServerProcess;
  let load: Load;
  const timings: Record<string, FaultTiming> = {};

  before(async () => {
    ferretdb = await startOwnFerretdb(binary!);
    proxy = await TcpProxy.start("127.0.0.1", ferretdb.port);
    simulator = await startSimulator({ port: 0 });
    server = await startServerProcess({
      NODE_ENV: "test",
      JWT_SECRET: TEST_JWT_SECRET,
      LOG_LEVEL: "warn",
      DATABASE_URL: `mongodb://127.0.0.1:${proxy.port}/faults?directConnection=true`,
      RATE_LIMIT_IP_MAX: "1000000",
      // Readers must reach the store on every request, not the process's copy of their user.
      USER_CACHE_TTL_MS: "0",
      ...simulatorPlatformEnv(simulator.url),
    });
    load = await startReaderLoad(server, "mongoreader");
  });

  after(async () => {
    await load?.stop();
    await server?.stop();
    await proxy?.close();
    await simulator?.close();
    await ferretdb?.remove();
    printFaultTimings(timings);
  });

  const readyz = async () => (await fetch(`${server.baseUrl}/readyz`)).status;

  it("fails fast with 503 when the connection is cut or goes silent, and recovers by itself", async () => {
    timings.cut = await measureFault(load, server, () => proxy.cut(), () => proxy.restore(), "a MongoDB cut");
    timings["silent, held"] = await measureFault(load, server, () => proxy.silence("hold"), () => proxy.restore(), "a silent MongoDB (bytes held)");
    timings["silent, dropped"] = await measureFault(load, server, () => proxy.silence("drop"), () => proxy.restore(), "a silent MongoDB (bytes dropped)");
    for (const [name, t] of Object.entries(timings)) assert.ok(t.firstFailureMs < 1000, `first 503 ${t.firstFailureMs} ms into the ${name}`);
  });

  it("fails fast with 503 while the server is stopped, says not ready, and recovers once it is back", async () => {
    const stoppedAt = Date.now();
    await ferretdb.stop();
    const first = await waitFor(() => load.samples.find((s) => s.ended >= stoppedAt && s.status !== 200), 15_000, "the first failure (stopped)");
    await waitFor(() => (load.samples.filter((s) => s.ended >= first.ended && s.status !== 200).length >= 5 ? true : undefined), 5000, "failures");
    assert.equal(await readyz(), 503, "/readyz while MongoDB is stopped");
    assert.equal(server.exit(), null, server.output().slice(-4000));
    const restartedAt = Date.now();
    await ferretdb.start();
    const recovered = await waitFor(() => load.samples.find((s) => s.started >= restartedAt && s.status === 200), 15_000, "recovery (restarted)");
    timings.stopped = { firstFailureMs: first.ended - stoppedAt, recoveryMs: recovered.ended - restartedAt };
    assert.equal(await readyz(), 200, "/readyz once MongoDB is back");
    assert.ok(timings.stopped.firstFailureMs < 1000, `first 503 ${timings.stopped.firstFailureMs} ms after the stop`);
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
