/**
 * The built drop-in client's LiveOps in a modelled WeChat runtime, against the real server:
 * config() asks again with the ETag it holds (a 304 keeps the config), and a room's configChanged
 * message makes the client fetch the new version itself and emit `configChanged` with it.
 */
import assert from "node:assert/strict";
import { startHarness, type Harness } from "../support/app-harness";
import { ensureClientBuilt } from "../support/client-build";
import { FakeDevice } from "./fake-platform";
import { createMiniGameContext } from "./runtime-context";

const unique = (label: string) => `${label}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

describe("client config() and configChanged in a WeChat runtime", function () {
  this.timeout(60_000);
  let h: Harness;
  let dropIn: string;

  before(async () => {
    dropIn = ensureClientBuilt();
    h = await startHarness();
  });
  after(async () => h?.close());

  it("asks conditionally (304 keeps the config) and, told by its room, fetches the new version and emits configChanged", async () => {
    const device = new FakeDevice(unique("lo"));
    const game = createMiniGameContext("wechat", device, dropIn);
    const client = game.library.createGameClient({ server: h.baseUrl });
    await client.login();
    const first = await client.config();
    const again = await client.config();
    assert.equal(again.version, first.version);
    assert.deepEqual(device.requests.filter((r) => r.path === "/api/config").map((r) => r.status), [200, 304]);

    const changed: Array<{ version: number; welcome: string }> = [];
    client.on("configChanged", (c) => changed.push({ version: c.version, welcome: c.flag("welcome_text", "") }));
    const room = await client.joinOrCreate("lobby");
    const defs = structuredClone(h.services.liveops.current("default").definitions);
    defs.flags.find((f) => f.key === "welcome_text")!.default = "Told by the room";
    const { version } = await h.services.liveops.publish("default", defs, "test");
    for (let i = 0; i < 250 && changed.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(changed, [{ version, welcome: "Told by the room" }]);
    assert.equal((await client.config()).version, version);
    assert.deepEqual(device.requests.filter((r) => r.path === "/api/config").map((r) => r.status), [200, 304, 200, 304]);
    await room.leave();
  });
});
