/**
 * A Redis Cluster lost under load: the server as a real process on REDIS_CLUSTER_NODES, every node
 * reached through a TCP proxy this test owns (the nodes announce the proxies, so discovered
 * connections pass through them too). All nodes are cut, then silenced with bytes held, then with
 * bytes dropped, and restored after each. As on one Redis (backend-faults.test.ts): the process stays
 * up, failures are 503 envelopes, the first within a second of a silence, and service is back within
 * a second of the restore.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { simulatorPlatformEnv, TEST_JWT_SECRET } from "../support/app-harness";
import { measureFault, printFaultTimings, startReaderLoad, type FaultTiming, type Load } from "../support/fault-load";
import { redisClusterSkipReason, startProxiedRedisCluster, type ProxiedRedisCluster } from "../support/redis-cluster";
import { startServerProcess, type ServerProcess } from "../support/server-process";
import { uniquePrefix } from "../support/services";
import { TcpProxy } from "../support/tcp-proxy";

(redisClusterSkipReason ? describe.skip : describe)("faults: a Redis Cluster drops or goes silent under load", function () {
  this.timeout(120_000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-cluster-faults-"));
  const proxies: TcpProxy[] = [];
  const timings: Record<string, FaultTiming> = {};
  let cluster: ProxiedRedisCluster;
  let simulator: RunningSimulator;
  let server: ServerProcess;
  let load: Load;

  before(async () => {
    cluster = await startProxiedRedisCluster(async (nodePort) => {
      const proxy = await TcpProxy.start("127.0.0.1", nodePort);
      proxies.push(proxy);
      return proxy.port;
    });
    simulator = await startSimulator({ port: 0 });
    server = await startServerProcess({
      NODE_ENV: "test",
      JWT_SECRET: TEST_JWT_SECRET,
      LOG_LEVEL: "warn",
      SQLITE_PATH: path.join(tmp, "users.sqlite"),
      REDIS_CLUSTER_NODES: cluster.urls.join(","),
      CACHE_KEY_PREFIX: uniquePrefix("cluster-faults"),
      RATE_LIMIT_IP_MAX: "1000000",
      ...simulatorPlatformEnv(simulator.url),
    });
    load = await startReaderLoad(server, "clusterfault");
  });

  after(async () => {
    await load?.stop();
    await server?.stop();
    await Promise.all(proxies.map((p) => p.close()));
    await cluster?.stop();
    await simulator?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
    printFaultTimings(timings);
  });

  const all = (act: (proxy: TcpProxy) => void) => () => proxies.forEach(act);

  it("fails fast with 503 when every node is cut or silenced, and recovers within a second", async () => {
    const cut = await measureFault(load, server, all((p) => p.cut()), all((p) => p.restore()), "a cluster cut");
    const held = await measureFault(load, server, all((p) => p.silence("hold")), all((p) => p.restore()), "a silent cluster (bytes held)");
    const dropped = await measureFault(load, server, all((p) => p.silence("drop")), all((p) => p.restore()), "a silent cluster (bytes dropped)");
    Object.assign(timings, { "Redis Cluster cut": cut, "Redis Cluster silent, held": held, "Redis Cluster silent, dropped": dropped });
    assert.ok(cut.firstFailureMs < 2000, `first 503 ${cut.firstFailureMs} ms after the cut`);
    for (const silent of [held, dropped]) {
      assert.ok(silent.firstFailureMs < 1000, `first 503 ${silent.firstFailureMs} ms into the silence`);
      assert.ok(silent.recoveryMs < 1000, `recovered ${silent.recoveryMs} ms after the silence ended`);
    }
  });

  it("answered every failed request with a 503 service_unavailable envelope and never exited", async () => {
    assert.equal(server.exit(), null, server.output().slice(-4000));
    const failed = load.samples.filter((s) => s.status !== 200);
    assert.ok(failed.length > 0, "the faults made some requests fail");
    const wrong = failed.filter((s) => s.status !== 503 || s.body?.data?.code !== "service_unavailable");
    assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} of ${failed.length} failures were not a 503 envelope`);
  });
});
