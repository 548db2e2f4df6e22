/**
 * The driver's monitor hangs when its heartbeat is written to a socket destroyed a tick before
 * (monitor-watchdog.ts): the server then stays "Unknown" and the process answers 503 until a
 * restart. Here the hang is made on purpose — the monitor's heartbeat is written to a socket that
 * takes nothing and is then closed without an error, and every other connection is reset — and
 * the connection must heal once the database answers again, as it does when the monitor is healthy.
 */
import assert from "node:assert/strict";
import type mongoose from "mongoose";
import { openMongoConnection } from "../../src/adapters/store/mongo/open-mongo";
import { TcpProxy } from "../support/tcp-proxy";
import { testMongoUrl } from "../support/services";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

(testMongoUrl ? describe : describe.skip)("MongoDB connection: a hung monitor heartbeat — MongoDB", function () {
  this.timeout(30_000);
  let proxy: TcpProxy;
  let connection: mongoose.Connection;

  before(async () => {
    const upstream = new URL(testMongoUrl!);
    proxy = await TcpProxy.start(upstream.hostname, Number(upstream.port || 27017));
    connection = await openMongoConnection(`mongodb://127.0.0.1:${proxy.port}/mgl_watchdog?directConnection=true`, { connectTimeoutMs: 500, acquireTimeoutMs: 1000, queryTimeoutMs: 1000 }, 4);
  });
  after(async () => {
    await connection?.close();
    await proxy?.close();
  });

  const write = () => connection.collection("probe").insertOne({ at: Date.now() }).then(() => "ok", (err: Error) => err.name);

  it("answers again after the database is back, though the monitor's heartbeat was written to a dead socket", async () => {
    assert.equal(await write(), "ok");
    const client = connection.getClient();
    const topology = (client as unknown as { topology: { s: { servers: Map<string, { monitor: { connection: { socket: { write: unknown; destroy(): void } } | null } }> } } }).topology;
    const monitor = [...topology.s.servers.values()][0].monitor;
    assert.ok(monitor.connection, "the monitor holds its connection");
    // The next heartbeat's write is taken by nothing and never drains, as on a destroyed socket.
    monitor.connection.socket.write = () => false;
    await new Promise((resolve) => client.once("serverHeartbeatStarted", resolve));
    // The peer closes it without an error (a FIN, as when FerretDB exits), then resets the rest.
    monitor.connection.socket.destroy();
    // A write in flight when its connection is reset marks the server unknown, as in an outage.
    proxy.silence();
    const inFlight = write();
    await sleep(100);
    proxy.cut();
    assert.notEqual(await inFlight, "ok");
    proxy.restore();
    let healedAfter = -1;
    for (const started = Date.now(); Date.now() - started < 10_000; await sleep(200)) {
      if ((await write()) === "ok") {
        healedAfter = Date.now() - started;
        break;
      }
    }
    assert.ok(healedAfter >= 0, "writes still fail 10 s after the database is reachable again");
  });
});
