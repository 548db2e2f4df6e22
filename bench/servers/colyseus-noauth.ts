/**
 * The "without auth" side of the room benchmark: a bare Colyseus 0.18 server whose lobby has the
 * same state shape as rooms/LobbyRoom.ts but no onAuth, so join+leave here costs everything the
 * service's join costs except the token check.
 *
 * Also the bare side of the room-traffic step: "traffic", the bench's relay room
 * (bench/servers/room-traffic-service.cjs) without AuthenticatedRoom, its sender the session id.
 *
 * Env: PORT (0 picks a free port), REDIS_URL (optional: Redis presence + driver, as the service
 * uses when it has Redis, so both sides of the comparison matchmake through the same machinery).
 * Listens on 127.0.0.1 and prints the port it got.
 */
import { Room, Server, type Client } from "@colyseus/core";
import { RedisDriver } from "@colyseus/redis-driver";
import { RedisPresence } from "@colyseus/redis-presence";
import { Encoder, MapSchema, Schema, type } from "@colyseus/schema";
import { WebSocketTransport } from "@colyseus/ws-transport";

Encoder.BUFFER_SIZE = Math.max(Encoder.BUFFER_SIZE, 64 * 1024);

class Player extends Schema {
  @type("string") userId = "";
  @type("string") name = "";
  @type("number") joinedAt = 0;
}

class LobbyState extends Schema {
  @type({ map: Player }) players = new MapSchema<Player>();
}

class NoAuthLobby extends Room<{ state: LobbyState }> {
  override maxClients = 500;

  override onCreate(): void {
    this.setState(new LobbyState());
    this.onMessage("*", () => undefined);
  }

  override onJoin(client: Client): void {
    const player = new Player();
    player.userId = client.sessionId;
    player.name = "guest";
    player.joinedAt = Date.now();
    this.state.players.set(client.sessionId, player);
  }

  override onLeave(client: Client): void {
    this.state.players.delete(client.sessionId);
  }
}

const TRAFFIC_ROOM_SIZE = 10;
const TEXT_MAX = 200;

/** The lobby's players and leave handling; only its size and the relayed `say` differ. */
class NoAuthTraffic extends NoAuthLobby {
  override maxClients = TRAFFIC_ROOM_SIZE;

  override onCreate(): void {
    super.onCreate();
    this.onMessage("say", (client, message: { text?: unknown; at?: unknown } | undefined) => {
      const text = message && typeof message === "object" ? message.text : undefined;
      if (typeof text !== "string" || text.length === 0 || text.length > TEXT_MAX) {
        client.send("error", { code: "invalid_message", message: `text must be 1–${TEXT_MAX} characters` });
        return;
      }
      this.broadcast("said", { userId: client.sessionId, text, at: message?.at });
    });
  }
}

async function main(): Promise<void> {
  const redisUrl = process.env.REDIS_URL?.trim() || undefined;
  const gameServer = new Server({
    greet: false,
    transport: new WebSocketTransport({ maxPayload: 16 * 1024 }),
    ...(redisUrl ? { presence: new RedisPresence(redisUrl), driver: new RedisDriver(redisUrl) } : {}),
  });
  gameServer.define("lobby", NoAuthLobby);
  gameServer.define("traffic", NoAuthTraffic);
  const port = Number(process.env.PORT ?? 0);
  await gameServer.listen(port, "127.0.0.1");
  process.stdout.write(`colyseus-noauth listening on ${port}${redisUrl ? " (redis)" : ""}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`colyseus-noauth failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
