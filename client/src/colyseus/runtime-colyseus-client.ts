import { Client, Room } from "colyseus.js";
import type { Endpoint } from "../endpoint";
import type { Runtime } from "../runtime";
import { RuntimeHttp } from "./runtime-http";
import { RuntimeSocketTransport, type TransportEvents } from "./socket-transport";

/**
 * colyseus.js 0.16's Client with its two I/O edges swapped for the runtime's, without touching any
 * global (no WebSocket/XMLHttpRequest polyfill, no prototype patch):
 * - constructed from settings, not a URL string, so `URL` is never needed;
 * - `http` (matchmaking) goes through `runtime.request`;
 * - each room's connection gets a transport over `runtime.connectSocket` before it opens.
 */
export class RuntimeColyseusClient extends Client {
  constructor(
    endpoint: Endpoint,
    private readonly runtime: Runtime,
  ) {
    super({ hostname: endpoint.hostname, port: endpoint.port, secure: endpoint.secure, pathname: endpoint.pathname });
    this.http = new RuntimeHttp(this, runtime) as unknown as Client["http"];
  }

  protected override createRoom<T = any>(roomName: string, rootSchema?: any): Room<T> {
    const room = new Room<T>(roomName, rootSchema);
    attachRuntimeTransport(room, this.runtime);
    return room;
  }
}

interface ConnectionInternals {
  events: TransportEvents;
  transport: unknown;
}

/**
 * colyseus.js 0.16's `Room.connect` creates `new Connection()` (whose WebSocketTransport only opens
 * a socket in `connect`), assigns it to `room.connection`, wires the events, then connects. An
 * accessor on this one room swaps the transport at that assignment, before anything opens.
 * Pinned to the 0.16 line; the runtime tests fail if that order ever changes.
 */
function attachRuntimeTransport(room: Room, runtime: Runtime): void {
  let connection: ConnectionInternals | undefined;
  Object.defineProperty(room, "connection", {
    configurable: true,
    enumerable: true,
    get: () => connection,
    set: (next: ConnectionInternals) => {
      if (next && !(next.transport instanceof RuntimeSocketTransport)) next.transport = new RuntimeSocketTransport(next.events, runtime);
      connection = next;
    },
  });
}
