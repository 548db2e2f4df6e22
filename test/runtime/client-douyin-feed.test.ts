/**
 * The built drop-in client in a modelled Douyin runtime and Douyin's feed direct play: the game saves
 * the player's ready scenes with `growth(client).feedScenes(…)`, the simulator plays Douyin asking the
 * server for them (signed both ways), an empty list takes the card away, and `feedLaunch` tells a
 * launch from a feed card (scene …3041) from any other.
 */
import assert from "node:assert/strict";
import { simulatorPlatformEnv, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { startHarness, type Harness } from "../support/app-harness";
import { ensureClientBuilt } from "../support/client-build";
import { FakeDevice } from "./fake-platform";
import { createMiniGameContext } from "./runtime-context";

const unique = (label: string) => `${label}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value));
const SECRET = "feed-secret-of-the-runtime-tests";

describe("client: Douyin feed direct play in a Douyin runtime", function () {
  this.timeout(60_000);
  let h: Harness;
  let simulator: RunningSimulator;
  let dropIn: string;

  before(async () => {
    dropIn = ensureClientBuilt();
    simulator = await startSimulator({ port: 0 });
    h = await startHarness({ simulator, env: { ...simulatorPlatformEnv(simulator.url), DOUYIN_FEED_SECRETS: `tt_simulator_app:${SECRET}`, DOUYIN_FEED_DEADLINE_MS: "5000" } });
    const registered = await fetch(`${simulator.url}/__simulator/douyin-feed/register`, { method: "POST", body: JSON.stringify({ appid: "tt_simulator_app", url: `${h.baseUrl}/api/minigame/douyin/feed`, secret: SECRET, deadlineMs: 10_000 }) });
    assert.equal(registered.status, 200);
  });
  after(async () => {
    await h?.close();
    await simulator?.close();
  });

  const pull = async (openid: string) => (await (await fetch(`${simulator.url}/__simulator/douyin-feed/pull`, { method: "POST", body: JSON.stringify({ appid: "tt_simulator_app", openid }) })).json()) as { signed: boolean; scenes: unknown[] };

  it("saves the ready scenes the server answers Douyin with, and clears them", async () => {
    const { library } = createMiniGameContext("douyin", new FakeDevice(unique("feed")), dropIn);
    const client = library.createGameClient({ server: h.baseUrl });
    const user = await client.login();
    const growth = library.growth(client);
    await growth.feedScenes([{ scene: 2, contentIds: ["CONTENT_STAMINA"], extra: "stamina=full" }]);
    const identity = (await h.services.store.listIdentities(user.id)).find((i) => i.platform === "douyin");
    assert.ok(identity, "the player has a Douyin identity");
    const answered = await pull(identity.platformId);
    assert.equal(answered.signed, true);
    assert.deepEqual(answered.scenes, [{ scene: 2, content_ids: ["CONTENT_STAMINA"], extra: "stamina=full" }]);
    await growth.feedScenes([]);
    assert.deepEqual((await pull(identity.platformId)).scenes, []);
  });

  it("tells a launch from a feed card by its scene", () => {
    const { library } = createMiniGameContext("douyin", new FakeDevice(unique("launch")), dropIn);
    assert.deepEqual(plain(library.feedLaunch({ scene: "023041", query: { feed_game_scene: "1", feed_game_extra: "gold=120" } })), { scene: 1, extra: "gold=120" });
    assert.deepEqual(plain(library.feedLaunch({ scene: "021036", query: {} })), null);
    assert.deepEqual(plain(library.feedLaunch({ scene: 113041 })), { scene: null, extra: "" });
  });
});
