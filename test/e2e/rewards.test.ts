/**
 * The reward sources end to end on every store backend, through the real server and the economy's
 * RewardGranter, with the simulator playing the platforms: a rewarded ad the simulator's WeChat ad
 * server verifies (and its replays), WeChat and Douyin gift packs from the example catalog, and mail
 * to every player claimed once each; the wallet and inventory show each grant once.
 */
import assert from "node:assert/strict";
import type { Harness } from "../support/app-harness";
import { storeBackends as backends } from "../support/backends";
import { paymentServerPerSuite } from "../support/payments";
import { simulatorRewardEnv } from "../support/rewards";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const backend of backends) {
  describe(`reward sources end to end: ${backend.name}`, function () {
    this.timeout(120_000);
    const server = paymentServerPerSuite(backend, simulatorRewardEnv());
    let h: Harness;
    before(() => (h = server.h));

    async function player(platform: "wechat" | "douyin" = "wechat") {
      const login =
        platform === "wechat" ? await h.get(`/api/minigame/wechat/login?jsCode=${unique("p")}`) : await h.get(`/api/minigame/douyin/login?code=${unique("p")}`);
      assert.equal(login.status, 200, JSON.stringify(login.body));
      return { openid: login.body.data.openid as string, userId: login.body.data.user.id as string, headers: { authorization: `Bearer ${login.body.data.token}` } };
    }
    const wallet = async (headers: Record<string, string>) => (await h.get("/api/economy/wallet", headers)).body.data.balances;
    const inventory = async (headers: Record<string, string>) => (await h.get("/api/economy/inventory", headers)).body.data.items;
    const control = async (path: string, body: Record<string, unknown>) => {
      const res = await fetch(`${h.simulator.url}${path}`, { method: "POST", body: JSON.stringify(body) });
      assert.equal(res.status, 200);
      return (await res.json()) as Record<string, string>;
    };
    async function until<T>(read: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
      const end = Date.now() + ms;
      for (;;) {
        const value = await read();
        if (value !== undefined) return value;
        if (Date.now() > end) throw new Error("timed out");
        await sleep(50);
      }
    }

    it("a verified ad view lands once: pending before the callback, granted after, 20 replays change nothing", async () => {
      const p = await player();
      const pending = await h.get("/api/ads/views/w-first", p.headers);
      assert.equal(pending.status, 404);
      assert.equal(pending.body.data.code, "ad_view_pending");
      const notifyUrl = `${h.baseUrl}/api/minigame/wechat/ad-reward`;
      const { transactionId } = await control("/__simulator/ad-reward", { platform: "wechat", openid: p.openid, adUnitId: "adunit-example", watchId: "w-first", notifyUrl });
      const view = await until(async () => {
        const res = await h.get("/api/ads/views/w-first", p.headers);
        return res.status === 200 ? res.body.data : undefined;
      });
      assert.equal(view.granted, true);
      assert.deepEqual(view.balances, { gems: 5 });
      await Promise.all(Array.from({ length: 20 }, () => control("/__simulator/ad-reward", { platform: "wechat", openid: p.openid, adUnitId: "adunit-example", transactionId, notifyUrl })));
      await sleep(500);
      assert.deepEqual(await wallet(p.headers), { gems: 5 });
      // Another player cannot read this player's view.
      const other = await player();
      assert.equal((await h.get("/api/ads/views/w-first", other.headers)).status, 404);
    });

    it("gift packs from the catalog: WeChat's once per OrderId, Douyin's once per gift code", async () => {
      const wx = await player();
      const notify = (platform: string) => `${h.baseUrl}/api/minigame/${platform}/gift-push`;
      const { orderId } = await control("/__simulator/gift", { platform: "wechat", openid: wx.openid, giftId: "gift-example", notifyUrl: notify("wechat") });
      await until(async () => ((await wallet(wx.headers)).gems === 20 ? true : undefined));
      await Promise.all(Array.from({ length: 20 }, () => control("/__simulator/gift", { platform: "wechat", openid: wx.openid, giftId: "gift-example", orderId, notifyUrl: notify("wechat") })));
      await sleep(500);
      assert.deepEqual(await wallet(wx.headers), { gems: 20 });
      assert.deepEqual(await inventory(wx.headers), [{ itemId: "potion", count: 2 }]);

      const dy = await player("douyin");
      const { giftCode } = await control("/__simulator/gift", { platform: "douyin", openid: dy.openid, giftId: "gift-example", notifyUrl: notify("douyin") });
      await until(async () => ((await wallet(dy.headers)).gems === 20 ? true : undefined));
      await Promise.all(Array.from({ length: 20 }, () => control("/__simulator/gift", { platform: "douyin", openid: dy.openid, giftId: "gift-example", orderId: giftCode, notifyUrl: notify("douyin") })));
      await sleep(500);
      assert.deepEqual(await wallet(dy.headers), { gems: 20 });
    });

    it("mail to every player: listed by each, claimed once each under 20 concurrent claims and a late one", async () => {
      const a = await player();
      const b = await player("douyin");
      const { mail } = await h.services.rewardSources.mail.send({ app: "default", userId: null, title: unique("Sorry"), attachments: { currencies: { gems: 50 } }, sender: "ops" });
      const listed = await h.get("/api/mail", a.headers);
      assert.equal(listed.status, 200);
      const found = listed.body.data.mail.find((m: { mailId: string }) => m.mailId === mail.mailId);
      assert.equal(found.claimed, false);
      const claims = await Promise.all(Array.from({ length: 20 }, () => h.request("POST", `/api/mail/${mail.mailId}/claim`, undefined, a.headers)));
      assert.ok(claims.every((c) => c.status === 200));
      assert.equal(claims.filter((c) => c.body.data.granted).length, 1);
      assert.equal((await h.request("POST", `/api/mail/${mail.mailId}/claim`, undefined, a.headers)).body.data.granted, false);
      assert.deepEqual(await wallet(a.headers), { gems: 50 });
      assert.equal((await h.request("POST", `/api/mail/${mail.mailId}/claim`, undefined, b.headers)).body.data.granted, true);
      assert.deepEqual(await wallet(b.headers), { gems: 50 });
      assert.equal((await h.get("/api/mail", a.headers)).body.data.mail.find((m: { mailId: string }) => m.mailId === mail.mailId).claimed, true);
      const missing = await h.request("POST", "/api/mail/no-such-mail/claim", undefined, a.headers);
      assert.equal(missing.status, 404);
      assert.equal(missing.body.data.code, "mail_not_found");
      assert.equal((await h.request("POST", "/api/mail/bad%20id/claim", undefined, a.headers)).status, 400);
      assert.equal((await h.get("/api/mail")).status, 401);
    });
  });
}
