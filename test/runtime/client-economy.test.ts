/**
 * The built drop-in client's shop inside a modelled WeChat runtime, against the real server and
 * simulator: the catalog, buying with coins and with soft currency at the catalog's price, the
 * wallet and inventory, refusals with their codes, and the `reward` event while in a room.
 */
import assert from "node:assert/strict";
import { simulatorPlatformEnv, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { startHarness, type Harness } from "../support/app-harness";
import { ensureClientBuilt } from "../support/client-build";
import { simulatorPaymentEnv } from "../support/payments";
import { FakeDevice } from "./fake-platform";
import { createMiniGameContext } from "./runtime-context";

const unique = (label: string) => `${label}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value));

describe("client economy in a WeChat runtime", function () {
  this.timeout(60_000);
  let h: Harness;
  let simulator: RunningSimulator;
  let dropIn: string;

  before(async () => {
    dropIn = ensureClientBuilt();
    simulator = await startSimulator({ port: 0 });
    h = await startHarness({ simulator, env: { ...simulatorPlatformEnv(simulator.url), ...simulatorPaymentEnv(simulator.url) } });
  });
  after(async () => {
    await h?.close();
    await simulator?.close();
  });

  it("reads the catalog, buys with coins and with gems at the catalog's price, and hears each reward in a room", async () => {
    const game = createMiniGameContext("wechat", new FakeDevice(unique("shopper")), dropIn);
    const client = game.library.createGameClient({ server: h.baseUrl });
    const user = await client.login();
    await fetch(`${simulator.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid: user.openid, balance: 70 }) });

    const catalog = plain(await client.catalog());
    assert.equal(catalog.items.find((i) => i.itemId === "potion")?.prices.gems, 10);
    const rewards: any[] = [];
    client.on("reward", (r) => rewards.push(plain(r)));
    const room = await client.joinOrCreate("lobby");

    const pack = plain(await client.buy("gem_pack"));
    assert.equal(pack.paidWith, "coins");
    assert.deepEqual(pack.paidWith === "coins" && [pack.order.state, pack.order.coins], ["delivered", 60]);
    assert.deepEqual(plain(await client.wallet()), { gems: 60 });
    const potion = plain(await client.buy("potion", { quantity: 2 }));
    assert.deepEqual(potion.paidWith === "soft" && [potion.purchase.paid, potion.purchase.balances], [{ gems: 20 }, { gems: 40 }]);
    assert.deepEqual(plain(await client.inventory()), [{ itemId: "potion", count: 2 }]);
    assert.equal(await client.balance(), 10);

    await assert.rejects(client.buy("sword"), (err: { code?: string; status?: number }) => err.code === "insufficient_balance" && err.status === 402);
    await assert.rejects(client.buy("potion", { quantity: 5 }), (err: { code?: string; status?: number }) => err.code === "insufficient_funds" && err.status === 402);
    await assert.rejects(client.buy("nope"), (err: { code?: string; status?: number }) => err.code === "item_not_found" && err.status === 404);

    for (let i = 0; i < 50 && rewards.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(rewards.map((r) => [r.source, r.balances.gems]), [["coin_order", 60], ["purchase", 40]]);
    await room.leave();
  });
});
