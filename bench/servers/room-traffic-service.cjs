/**
 * The service, as `npm start` runs it, plus one room type a studio would write: "traffic", an
 * AuthenticatedRoom (so onAuth, the one-seat rule and the session guard all apply) of up to 10
 * players whose `say` messages ({ text ≤ 200 characters, at }) are relayed at once to everyone in
 * the room, with the sender taken from `client.auth` as the lobby's chat does (no moderation and
 * no 1-per-second flood rule: this is game traffic at 10 Hz, not typed chat). `at` is echoed so the
 * load generator can time each delivery.
 *
 * Plain CommonJS so the compiled service (bench/.build) runs without tsx; with --no-build it runs
 * under tsx's loader and requires the TypeScript sources instead. Env: BENCH_SERVICE_ROOT (the
 * directory that holds src/ and rooms/: bench/.build or the repository), plus the service's own.
 */
"use strict";
const path = require("node:path");

const root = process.env.BENCH_SERVICE_ROOT;
if (!root) throw new Error("BENCH_SERVICE_ROOT is not set");

// Starts the service: its entry loads the settings and hands Colyseus its timeouts synchronously,
// before it first waits, so Colyseus may be loaded from here once this require returns.
require(path.join(root, "src/server/index"));

const { matchMaker } = require("@colyseus/core");
const { AuthenticatedRoom, playerOf } = require(path.join(root, "rooms/AuthenticatedRoom"));
const { LobbyState, Player } = require(path.join(root, "rooms/LobbyRoom"));

const ROOM_SIZE = 10;
const TEXT_MAX = 200;

class TrafficRoom extends AuthenticatedRoom {
  onCreate(options) {
    super.onCreate(options);
    this.maxClients = ROOM_SIZE;
    this.setState(new LobbyState());
    this.onMessage("say", (client, message) => {
      const text = message && typeof message === "object" ? message.text : undefined;
      if (typeof text !== "string" || text.length === 0 || text.length > TEXT_MAX) {
        client.send("error", { code: "invalid_message", message: `text must be 1–${TEXT_MAX} characters` });
        return;
      }
      this.broadcast("said", { userId: playerOf(client).userId, text, at: message.at });
    });
  }

  onJoin(client) {
    const auth = playerOf(client);
    const player = new Player();
    player.userId = auth.userId;
    player.name = auth.nickname || auth.username;
    player.joinedAt = Date.now();
    this.state.players.set(client.sessionId, player);
  }

  onPlayerLeave(client) {
    this.state.players.delete(client.sessionId);
  }
}

matchMaker.defineRoomType("traffic", TrafficRoom);
