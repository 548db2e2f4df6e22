/**
 * The WebSocket transport of the rooms, with client-caused connection failures logged as one line.
 * Colyseus logs a connect without a valid seat reservation (expired, already used, made up, or
 * for a room that is gone) as an error with a 9-line stack trace, and does the same for a socket
 * error a client provokes (a message above the size limit). Both are the client's doing: one info
 * line each, so that error-level lines stay meaningful for alerts. Each connection's frames of one
 * event-loop turn leave in one write (src/net/turn-batched-writes.ts).
 */
import type http from "node:http";
import { CloseCode, ErrorCode, getMessageBytes, matchMaker, Protocol } from "@colyseus/core";
import { WebSocketTransport, type TransportOptions } from "@colyseus/ws-transport";
import type WebSocket from "ws";
import type { Logger } from "../logging/logger";
import { batchWritesPerTurn } from "../net/turn-batched-writes";
import { cutStaleConnection } from "../../rooms/seat-hold";

type RawClient = Parameters<WebSocketTransport["onConnection"]>[0];

export interface RoomTransportOptions extends TransportOptions {
  /** The one client-address rule (src/net/client-ip.ts). */
  clientIp: (req: http.IncomingMessage) => string;
  /** The interface to listen on (HOST); `listen()` of @colyseus/tools passes only a port. */
  host: string;
  /**
   * Called once the server listens, after Colyseus has added its own request listener (its router,
   * with a CORS rule that reflects any origin): the caller puts its own in place (app.config.ts).
   */
  onListening?: (server: http.Server) => void;
}

export class RoomTransport extends WebSocketTransport {
  private readonly clientIp: (req: http.IncomingMessage) => string;
  private readonly host: string;
  private readonly onListening?: (server: http.Server) => void;

  constructor(
    options: RoomTransportOptions,
    private readonly logger: Logger,
  ) {
    const { clientIp, host, onListening, ...transportOptions } = options;
    super(transportOptions);
    this.clientIp = clientIp;
    this.host = host;
    this.onListening = onListening;
    // The base class registers onConnection unbound; route connections through ours instead.
    this.wss.off("connection", this.onConnection);
    this.wss.on("connection", (rawClient: RawClient, req: http.IncomingMessage) =>
      this.onConnection(rawClient, req).catch((err: unknown) => {
        this.logger.error({ err, event: "room_connection_failed" }, "a room connection failed unexpectedly");
        rawClient.terminate();
      }),
    );
  }

  protected override async onConnection(rawClient: RawClient, req: http.IncomingMessage): Promise<void> {
    // Parsed exactly as the base class does, so both agree on which seat is meant.
    const url = new URL(`ws://server${req.url ?? "/"}`);
    const roomId = url.pathname.match(/\/[a-zA-Z0-9_-]+\/([a-zA-Z0-9_-]+)$/)?.[1];
    const room = roomId ? matchMaker.getLocalRoomById(roomId) : undefined;
    const sessionId = url.searchParams.get("sessionId") ?? "";
    const reconnectionToken = url.searchParams.get("reconnectionToken") ?? undefined;
    if (!room || !room.hasReservedSeat(sessionId, reconnectionToken)) {
      this.logger.info({ roomId, reason: room ? "no_seat" : "no_room" }, "room connection refused: no valid seat reservation");
      refuse(rawClient, reconnectionToken !== undefined);
      return;
    }
    // A reconnection over the WebSocket presenting the token of a connection the room still counts
    // (a network switch): cut that one now rather than after its pings fail (seat-hold.ts).
    if (reconnectionToken && room.clients.get(sessionId)?.reconnectionToken === reconnectionToken) cutStaleConnection(room.clients, reconnectionToken);
    // The base class takes X-Real-IP, else X-Forwarded-For, as the address it hands to the room's
    // auth: put the address our rule resolved there, so both edges see the same client.
    req.headers["x-real-ip"] = this.clientIp(req);
    batchWritesPerTurn(rawClient);
    const joined = super.onConnection(rawClient, req);
    // The base class has attached its stack-printing "error" listener synchronously by now.
    rawClient.removeAllListeners("error");
    rawClient.on("error", (err: Error) => this.logger.info({ roomId, reason: err.message }, "room connection error caused by the client"));
    await joined;
  }

  /** Binds HOST unless a caller names an interface itself (or a Unix socket path, as Colyseus Cloud does). */
  override listen(port: number, hostname?: string, backlog?: number, listeningListener?: (err?: Error) => void): this {
    const listening = (err?: Error) => {
      listeningListener?.(err); // Colyseus binds its routes here
      if (!err && this.server) this.onListening?.(this.server);
    };
    return super.listen(port, hostname ?? (typeof port === "number" ? this.host : undefined), backlog, listening);
  }
}

/** What Colyseus sends for an expired seat: an error message, then close code 4002 (4003 for a reconnection). */
function refuse(rawClient: WebSocket, reconnecting: boolean): void {
  rawClient.on("error", () => undefined);
  const message = getMessageBytes[Protocol.ERROR](ErrorCode.MATCHMAKE_EXPIRED, "seat reservation expired.");
  rawClient.send(message, { binary: true }, () => rawClient.close(reconnecting ? CloseCode.FAILED_TO_RECONNECT : CloseCode.WITH_ERROR));
}
