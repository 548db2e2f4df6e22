import { Client, Room } from "colyseus.js";
import type { Endpoint } from "../endpoint";
import type { Runtime } from "../runtime";
import { RuntimeHttp } from "./runtime-http";
import { RuntimeSocketTransport, type TransportEvents } from "./socket-transport";

/** Told of a joined room's connection that closed on its own; true when it takes the room from there. */
export type LossHandler = (room: Room, code: number, reason: string) => boolean;

/**
 * colyseus.js 0.16's Client with its two I/O edges swapped for the runtime's, without touching any
 * global (no WebSocket/XMLHttpRequest polyfill, no prototype patch):
 * - constructed from settings, not a URL string, so `URL` is never needed;
 * - `http` (matchmaking) goes through `runtime.request`;
 * - each room's connection gets a transport over `runtime.connectSocket` before it opens.
 */
export class RuntimeColyseusClient extends Client {
  /** Set by the client's reconnection (reconnection.ts); none: every close reaches colyseus.js. */
  onConnectionLoss: LossHandler | undefined;

  constructor(
    endpoint: Endpoint,
    private readonly runtime: Runtime,
  ) {
    super({ hostname: endpoint.hostname, port: endpoint.port, secure: endpoint.secure, pathname: endpoint.pathname });
    this.http = new RuntimeHttp(this, runtime) as unknown as Client["http"];
  }

  protected override createRoom<T = any>(roomName: string, rootSchema?: any): Room<T> {
    const room = new Room<T>(roomName, rootSchema);
    attachRuntimeTransport(room, this.runtime, (code, reason) => this.onConnectionLoss?.(room, code, reason) ?? false);
    return room;
  }

  /**
   * Takes `room`'s seat back with its reconnection token, on the same Room object: colyseus.js
   * 0.16 reuses a room instance this way for its devMode restarts. The handlers the game registered
   * stay; `room.reconnectionToken` is the new one once it resolves.
   */
  resume<T>(room: Room<T>, rootSchema?: any): Promise<Room<T>> {
    const [roomId, token] = String(room.reconnectionToken).split(":");
    if (!roomId || !token) return Promise.reject(new Error("the room has no reconnection token"));
    const internals = room as unknown as { hasJoined: boolean; onJoin: { clear(): void } };
    // Until the new connection has joined, its closes are failures of this attempt, not a leave.
    internals.hasJoined = false;
    // onJoin only ever holds colyseus.js's own one-shot join waiters. One left by an attempt whose
    // socket failed would, removing itself as the next join fires, make the signal skip this one's.
    internals.onJoin.clear();
    return this.createMatchMakeRequest<T>("reconnect", roomId, { reconnectionToken: token }, rootSchema, room as Room);
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
function attachRuntimeTransport(room: Room, runtime: Runtime, onLoss: (code: number, reason: string) => boolean): void {
  let connection: ConnectionInternals | undefined;
  const owner = {
    isCurrent: (transport: RuntimeSocketTransport) => connection?.transport === transport,
    // Only a joined room's connection is taken over; an attempt that fails before joining rejects the join.
    takeOverLoss: (code: number, reason: string) => (room as unknown as { hasJoined: boolean }).hasJoined && onLoss(code, reason),
  };
  Object.defineProperty(room, "connection", {
    configurable: true,
    enumerable: true,
    get: () => connection,
    set: (next: ConnectionInternals) => {
      if (next && !(next.transport instanceof RuntimeSocketTransport)) next.transport = new RuntimeSocketTransport(next.events, runtime, owner);
      connection = next;
    },
  });
}
