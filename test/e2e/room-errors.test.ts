/**
 * A game's room handler that throws (a message handler, an async one, a timer of the room's clock)
 * no longer reaches the process's uncaughtException handler, where Colyseus shuts the server down:
 * the error is logged and the room, its players and the process go on. Before, the first of these
 * messages failed this suite with an uncaught exception (in a server: the process ended).
 */
import assert from "node:assert/strict";
import { matchMaker } from "@colyseus/core";
import { Client, type Room } from "@colyseus/sdk";
import { AuthenticatedRoom } from "../../rooms/AuthenticatedRoom";
import { useHarness } from "../support/app-harness";
import { backends } from "../support/backends";
import { leaveRooms } from "../support/rooms";

class BuggyRoom extends AuthenticatedRoom {
  override onCreate(options: unknown) {
    super.onCreate(options);
    this.onMessage("boom", () => {
      throw new Error("a bug in the game's message handler");
    });
    this.onMessage("boom_async", async () => {
      throw new Error("a bug in the game's async message handler");
    });
    this.onMessage("boom_later", () => {
      this.clock.setTimeout(() => {
        throw new Error("a bug in the game's timer");
      }, 1);
    });
    this.onMessage("ping", (client) => client.send("pong", "ok"));
  }
}

describe("errors escaping a room's handlers", function () {
  this.timeout(30_000);
  const h = useHarness(backends[0]);
  const rooms: Room[] = [];
  before(() => matchMaker.defineRoomType("buggy", BuggyRoom));
  after(() => leaveRooms(rooms));

  it("logs each, and the room answers the player's next message", async () => {
    const login = await h.get(`/api/minigame/wechat/login?jsCode=buggy${Date.now().toString(36)}`);
    assert.equal(login.status, 200);
    const room = await new Client(h.baseUrl).joinOrCreate("buggy", { accessToken: login.body.data.token });
    rooms.push(room);
    for (const type of ["boom", "boom_async", "boom_later"]) {
      room.send(type);
      const pong = new Promise((resolve) => room.onMessage("pong", resolve));
      room.send("ping");
      assert.equal(await pong, "ok", `the room answers after ${type}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    const escaped = h.logs.filter((line) => line.includes('"event":"room_error_escaped"'));
    assert.equal(escaped.length, 3, escaped.join("\n"));
    assert.ok(escaped.some((line) => line.includes('"method":"setTimeout"')));
  });
});
