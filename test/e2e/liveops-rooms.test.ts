/**
 * Rooms are told of a new LiveOps version: a player connected to a room with a real Colyseus client
 * (@colyseus/sdk) receives `configChanged` {app, version} when an operator publishes here, and when
 * another process publishes (a second service on the same store; this process's refresh takes it up
 * within LIVEOPS_REFRESH_MS). The player's next GET /api/config with the old ETag gets the new
 * version, and with the new ETag a 304.
 */
import assert from "node:assert/strict";
import { Client, type Room } from "@colyseus/sdk";
import { createLiveOpsStore } from "../../src/adapters/store/create-liveops-store";
import { LiveOpsService } from "../../src/services/liveops/liveops-service";
import { startHarness, type Harness } from "../support/app-harness";

const unique = (label: string) => `${label}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

describe("LiveOps: rooms are told of a new version", function () {
  this.timeout(60_000);
  let h: Harness;
  const rooms: Room[] = [];

  before(async () => {
    h = await startHarness({ env: { LIVEOPS_REFRESH_MS: "200" } });
  });
  after(async () => {
    for (const room of rooms) await room.leave().catch(() => undefined);
    await h?.close();
  });

  async function playerInRoom() {
    const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("lr")}`);
    const token = login.body.data.token as string;
    const room = await new Client(h.baseUrl.replace("http", "ws")).joinOrCreate("lobby", { accessToken: token });
    rooms.push(room);
    const told: Array<{ app: string; version: number }> = [];
    room.onMessage("configChanged", (m) => told.push(m));
    return { headers: { authorization: `Bearer ${token}` }, told };
  }

  const until = async (what: string, done: () => boolean, ms = 5000) => {
    for (const end = Date.now() + ms; !done(); await new Promise((r) => setTimeout(r, 20))) if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
  };
  const definitions = (welcome: string) => {
    const d = structuredClone(h.services.liveops.current("default").definitions);
    d.flags.find((f) => f.key === "welcome_text")!.default = welcome;
    return d;
  };

  it("a publish here: every player in a room of the app is sent configChanged; the old ETag gets the new config, the new one a 304", async () => {
    const [a, b] = [await playerInRoom(), await playerInRoom()];
    const first = await h.get("/api/config", a.headers);
    const etag = first.headers.get("etag")!;
    const { version } = await h.services.liveops.publish("default", definitions("Hello rooms"), "test");
    await until("both players told", () => a.told.length > 0 && b.told.length > 0);
    assert.deepEqual([a.told, b.told], [[{ app: "default", version }], [{ app: "default", version }]]);
    const changed = await fetch(`${h.baseUrl}/api/config`, { headers: { ...a.headers, "if-none-match": etag } });
    assert.equal(changed.status, 200);
    const body = (await changed.json()) as { data: { version: number; flags: Record<string, unknown> } };
    assert.deepEqual([body.data.version, body.data.flags.welcome_text], [version, "Hello rooms"]);
    const again = await fetch(`${h.baseUrl}/api/config`, { headers: { ...a.headers, "if-none-match": changed.headers.get("etag")! } });
    assert.equal(again.status, 304);
  });

  it("a publish by another process reaches this process's rooms through its refresh", async () => {
    const p = await playerInRoom();
    const store = await createLiveOpsStore(h.config.store);
    try {
      const other = new LiveOpsService(store, h.config.liveops.definitions, ["default"], async () => ({ payer: false, totalPaid: 0, leaderboardBest: {}, properties: {} }), () => undefined, h.services.logger);
      await other.refresh();
      const { version } = await other.publish("default", definitions("From elsewhere"), "other-process");
      await until("the refresh to tell the room", () => p.told.length > 0, 3000);
      assert.deepEqual(p.told, [{ app: "default", version }]);
      assert.equal((await h.get("/api/config", p.headers)).body.data.flags.welcome_text, "From elsewhere");
    } finally {
      await store.close();
    }
  });
});
