/**
 * The built drop-in client's rewards inside a modelled WeChat runtime, against the real server and
 * simulator: watchAd() shows the runtime's rewarded ad with the server-side verification data and
 * resolves once the reward landed (WeChat's ad server, played by the simulator, calls the server
 * with that data); an ad closed early rejects with nothing granted; mail() and claim(mailId); in a
 * Douyin runtime, redeemGiftCode(code) for a code the simulator issued, once.
 */
import assert from "node:assert/strict";
import { simulatorPlatformEnv, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { startHarness, type Harness } from "../support/app-harness";
import { ensureClientBuilt } from "../support/client-build";
import { simulatorPaymentEnv } from "../support/payments";
import { simulatorRewardEnv } from "../support/rewards";
import { FakeDevice } from "./fake-platform";
import { createMiniGameContext } from "./runtime-context";

const unique = (label: string) => `${label}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

describe("client rewards in the mini-game runtimes", function () {
  this.timeout(60_000);
  let h: Harness;
  let simulator: RunningSimulator;
  let dropIn: string;

  before(async () => {
    dropIn = ensureClientBuilt();
    simulator = await startSimulator({ port: 0 });
    h = await startHarness({ simulator, env: { ...simulatorPlatformEnv(simulator.url), ...simulatorPaymentEnv(simulator.url), ...simulatorRewardEnv() } });
  });
  after(async () => {
    await h?.close();
    await simulator?.close();
  });

  it("watchAd resolves once the verified reward landed; an ad closed early grants nothing; mail is claimed once", async () => {
    const game = createMiniGameContext("wechat", new FakeDevice(unique("viewer")), dropIn);
    // wx.createRewardedVideoAd as base library ≥ 3.10.3 has it: the verification data set before show()
    // goes with WeChat's ad server's callback once the player watched to the end.
    const shown: Array<{ adUnitId: string; data: Record<string, unknown> }> = [];
    let watchToEnd = true;
    (game.context.wx as Record<string, unknown>).createRewardedVideoAd = ({ adUnitId }: { adUnitId: string }) => {
      let data: Record<string, unknown> = {};
      const listeners: Array<(r: { isEnded: boolean }) => void> = [];
      return {
        setServerSideVerificationData: (d: Record<string, unknown>) => (data = d),
        onClose: (listener: (r: { isEnded: boolean }) => void) => listeners.push(listener),
        offClose: (listener: (r: { isEnded: boolean }) => void) => listeners.splice(listeners.indexOf(listener), 1),
        load: () => Promise.resolve(),
        show: async () => {
          shown.push({ adUnitId, data });
          if (watchToEnd) {
            const custom = JSON.parse(String(data.customData)) as { adUnitId: string; watchId: string };
            await fetch(`${simulator.url}/__simulator/ad-reward`, {
              method: "POST",
              body: JSON.stringify({ platform: "wechat", openid: data.userId, adUnitId: custom.adUnitId, watchId: custom.watchId, notifyUrl: `${h.baseUrl}/api/minigame/wechat/ad-reward` }),
            });
          }
          setTimeout(() => [...listeners].forEach((l) => l({ isEnded: watchToEnd })), 5);
        },
      };
    };
    const client = game.library.createGameClient({ server: h.baseUrl });
    const user = await client.login();

    const reward = await client.watchAd("adunit-example", { timeoutMs: 10_000, intervalMs: 50 });
    assert.deepEqual(JSON.parse(JSON.stringify([reward.adUnitId, reward.granted, reward.balances])), ["adunit-example", true, { gems: 5 }]);
    assert.equal(shown[0].data.userId, user.openid);
    assert.equal(JSON.parse(String(shown[0].data.customData)).adUnitId, "adunit-example");

    watchToEnd = false;
    await assert.rejects(client.watchAd("adunit-example", { timeoutMs: 2_000, intervalMs: 50 }), (err: { code?: string }) => err.code === "ad_not_finished");
    assert.deepEqual((await h.get("/api/economy/wallet", { authorization: `Bearer ${client.session!.token}` })).body.data.balances, { gems: 5 });

    const { mail } = await h.services.rewardSources.mail.send({ app: "default", userId: user.id as string, title: "For you", attachments: { currencies: { gems: 7 } }, sender: "ops" });
    const listed = await client.mail();
    assert.equal(listed[0].mailId, mail.mailId);
    assert.equal((await client.claim(mail.mailId)).granted, true);
    const replay = await client.claim(mail.mailId);
    assert.deepEqual(JSON.parse(JSON.stringify([replay.granted, replay.balances])), [false, { gems: 12 }]);
    await assert.rejects(client.claim("no-such-mail"), (err: { code?: string; status?: number }) => err.code === "mail_not_found" && err.status === 404);
  });

  it("redeemGiftCode grants a Douyin gift code once; an unknown code is refused with the server's code", async () => {
    const game = createMiniGameContext("douyin", new FakeDevice(unique("lucky")), dropIn);
    const client = game.library.createGameClient({ server: h.baseUrl });
    const user = await client.login();
    const issued = await fetch(`${simulator.url}/__simulator/gift`, { method: "POST", body: JSON.stringify({ platform: "douyin", openid: user.openid, giftId: "gift-example", delivery: "code" }) });
    const { giftCode } = (await issued.json()) as { giftCode: string };
    const first = await client.redeemGiftCode(giftCode);
    const again = await client.redeemGiftCode(giftCode);
    assert.deepEqual(JSON.parse(JSON.stringify([first.granted, first.giftId, again.granted, again.balances])), [true, "gift-example", false, { gems: 20 }]);
    await assert.rejects(client.redeemGiftCode("no-such-code"), (err: { code?: string; status?: number }) => err.code === "gift_code_invalid" && err.status === 404);
  });
});
