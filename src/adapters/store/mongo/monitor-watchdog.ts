/**
 * Frees the MongoDB driver's server monitor when its heartbeat hangs, so a process always heals
 * after the database comes back.
 *
 * The driver (mongodb 6.20; 6.22 and 7.9 read the same) sends a heartbeat on its monitor
 * connection when that connection is not yet marked closed; if the socket was destroyed a tick
 * before (the server or a proxy closed it; the close event is still queued), the write returns
 * false and the driver waits for a 'drain' that never comes: the socket's timeout cannot fire on
 * a destroyed socket, and closing the connection does not reject a write in progress. The monitor
 * then never checks again, the server stays "Unknown", and every operation of the process fails
 * server selection until a restart (seen in CI: one of two processes answered 503 for minutes
 * after FerretDB was killed and started again, the other healed in 300 ms).
 *
 * The watchdog notices a heartbeat that has not ended long after any heartbeat could (connect
 * timeout + heartbeat interval + a margin, which also covers MongoDB's streamed heartbeats) on a
 * connection whose socket is destroyed, and emits an error on that socket: the driver's wait
 * rejects, the heartbeat fails as any failed heartbeat does, and the monitor starts over. It
 * reaches into the driver's topology (`topology.s.servers`, `monitor.connection.socket`);
 * when a later driver no longer has these, it does nothing.
 */
import type { MongoClient } from "mongodb";

const MARGIN_MS = 1000;

interface StuckSocket {
  destroyed: boolean;
  listenerCount(event: string): number;
  emit(event: string, error: Error): boolean;
}

export interface MonitorWatchdog {
  stop(): void;
  /** How many hung heartbeats it freed. */
  readonly freed: number;
}

export function watchMonitors(client: MongoClient, timing: { connectTimeoutMs: number; heartbeatFrequencyMs: number }): MonitorWatchdog {
  const started = new Map<string, number>();
  const limitMs = timing.connectTimeoutMs + timing.heartbeatFrequencyMs + MARGIN_MS;
  let freed = 0;
  client.on("serverHeartbeatStarted", (event) => {
    if (!started.has(event.connectionId)) started.set(event.connectionId, Date.now());
  });
  const ended = (event: { connectionId: string }) => started.delete(event.connectionId);
  client.on("serverHeartbeatSucceeded", ended);
  client.on("serverHeartbeatFailed", ended);

  const timer = setInterval(() => {
    for (const [address, since] of started) {
      if (Date.now() - since < limitMs) continue;
      const socket = monitorSocket(client, address);
      if (!socket?.destroyed || socket.listenerCount("error") === 0) continue;
      started.delete(address);
      freed += 1;
      socket.emit("error", new Error("heartbeat written to a closed connection; freed by the monitor watchdog"));
    }
  }, Math.max(250, Math.floor(timing.heartbeatFrequencyMs / 2)));
  timer.unref();
  return {
    stop: () => clearInterval(timer),
    get freed() {
      return freed;
    },
  };
}

function monitorSocket(client: MongoClient, address: string): StuckSocket | undefined {
  const topology = (client as unknown as { topology?: { s?: { servers?: Map<string, { monitor?: { connection?: { socket?: StuckSocket } } }> } } }).topology;
  return topology?.s?.servers?.get(address)?.monitor?.connection?.socket;
}
