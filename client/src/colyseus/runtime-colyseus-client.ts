import { Client, Room, ServerError } from "@colyseus/sdk";
import type { Endpoint } from "../endpoint";
import type { Runtime } from "../runtime";
import { RuntimeHttp } from "./runtime-http";
import { RuntimeSocketTransport, type TransportEvents } from "./socket-transport";

/** Told of a joined room's connection that closed on its own; true when it takes the room from there. */
export type LossHandler = (room: Room, code: number, reason: string) => boolean;

/** What a seat reservation of Colyseus 0.18 holds (flat). */
interface SeatReservation {
  name: string;
  roomId: string;
  sessionId: string;
  processId: string;
  publicAddress?: string;
}

/** The parts of @colyseus/sdk's Room this client drives beyond its public API (pinned to the 0.18 line; the runtime tests fail if they change). */
interface RoomInternals {
  joinedAtTime: number;
  onJoin: { once(cb: () => void): void; remove(cb: () => void): void; clear(): void };
  connect(endpoint: string, options?: unknown, headers?: unknown): void;
}

/**
 * @colyseus/sdk 0.18's Client with its two I/O edges swapped for the runtime's, without touching any
 * global (no WebSocket/fetch/Headers/URL polyfill, no prototype patch; the SDK's own HTTP layer needs
 * `fetch` and `Headers`, which the mini-game runtimes lack):
 * - constructed from settings, not a URL string, so `URL` is never needed;
 * - `http` (matchmaking) goes through `runtime.request`;
 * - each room's connection gets a transport over `runtime.connectSocket` before it opens;
 * - the SDK's own automatic reconnection is off: it rebuilds the socket URL with `URL` and gives up
 *   on WeChat's background close (1000); the client's reconnection (reconnection.ts) takes the seat
 *   back on the same Room object instead (`resume`).
 */
export class RuntimeColyseusClient extends Client {
  /** Set by the client's reconnection (reconnection.ts); none: every close reaches the SDK. */
  onConnectionLoss: LossHandler | undefined;

  constructor(
    endpoint: Endpoint,
    private readonly runtime: Runtime,
  ) {
    super({ hostname: endpoint.hostname, port: endpoint.port, secure: endpoint.secure, pathname: endpoint.pathname });
    this.http = new RuntimeHttp((path) => this.getHttpEndpoint(path), runtime) as unknown as Client["http"];
  }

  protected override createRoom<T>(roomName: string, rootSchema?: any): Room<any, T> {
    const room = new Room<any, T>(roomName, rootSchema);
    room.reconnection.enabled = false;
    attachRuntimeTransport(room, this.runtime, (code, reason) => this.onConnectionLoss?.(room, code, reason) ?? false);
    return room;
  }

  /**
   * Takes `room`'s seat back with its reconnection token, on the same Room object: the handlers the
   * game registered stay, and the full state the server sends after the join is reconciled into
   * `room.state` by the SDK (schema 5's resync: items gone meanwhile get their onRemove). The room's
   * `reconnectionToken` is the new one once it resolves.
   */
  async resume<T>(room: Room<any, T>): Promise<Room<any, T>> {
    const [roomId, token] = String(room.reconnectionToken).split(":");
    if (!roomId || !token) throw new Error("the room has no reconnection token");
    const { data } = await (this.http as unknown as RuntimeHttp).post(`/matchmake/reconnect/${roomId}`, {
      headers: { Accept: "application/json", "Content-Type": "application/json" },
      body: { reconnectionToken: token },
    });
    const reservation = data as SeatReservation;
    const internals = room as unknown as RoomInternals;
    // Until the new connection has joined, its closes are failures of this attempt (onError), not a
    // leave; the join then fires onJoin again, not the SDK's onReconnect.
    internals.joinedAtTime = 0;
    // onJoin only ever holds the SDK's own one-shot join waiters; one left by a failed attempt would fire with this one.
    internals.onJoin.clear();
    const endpoint = this.buildEndpoint(reservation as never, { sessionId: room.sessionId, reconnectionToken: token });
    return new Promise<Room<any, T>>((resolve, reject) => {
      const failed = (code: number, message?: string) => {
        internals.onJoin.clear();
        reject(new ServerError(code, message ?? ""));
      };
      room.onError.once(failed);
      internals.onJoin.once(() => {
        room.onError.remove(failed);
        resolve(room);
      });
      internals.connect(endpoint, { ...reservation, protocol: this.settings.protocol }, (this.http as unknown as RuntimeHttp).options.headers);
    });
  }
}

interface ConnectionInternals {
  events: TransportEvents;
  transport: unknown;
}

/**
 * @colyseus/sdk 0.18's `Room.connect` creates `new Connection()` (whose WebSocketTransport only opens
 * a socket in `connect`), assigns it to `room.connection`, wires the events, then connects. An
 * accessor on this one room swaps the transport at that assignment, before anything opens.
 * Pinned to the 0.18 line; the runtime tests fail if that order ever changes.
 */
function attachRuntimeTransport(room: Room, runtime: Runtime, onLoss: (code: number, reason: string) => boolean): void {
  let connection: ConnectionInternals | undefined;
  const owner = {
    isCurrent: (transport: RuntimeSocketTransport) => connection?.transport === transport,
    // Only a joined room's connection is taken over; an attempt that fails before joining rejects the join.
    takeOverLoss: (code: number, reason: string) => (room as unknown as RoomInternals).joinedAtTime !== 0 && onLoss(code, reason),
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
