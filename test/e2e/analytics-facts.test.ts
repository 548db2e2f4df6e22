/**
 * The server's facts reach analytics once each, on every store: a paid order delivered (revenue in
 * the platform's coins), a soft-currency purchase and a verified rewarded ad (and its gems as a
 * currency_granted), a gift pack, a mail
 * claim and an operator's grant, each replayed and still one event; a leaderboard submission counted
 * without its score.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { AnalyticsEvent } from "../../src/core/ports/analytics-store";
import type { Harness } from "../support/app-harness";
import { storeBackends } from "../support/backends";
import { paymentServerPerSuite } from "../support/payments";
import { simulatorRewardEnv } from "../support/rewards";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;

for (const backend of storeBackends) {
  describe(`analytics of the server's facts — ${backend.name}`, function () {
    this.timeout(60_000);
    const boards = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "analytics-boards-")), "leaderboards.json");
    fs.writeFileSync(boards, JSON.stringify({ default: [{ id: "highscores", order: "desc", operator: "best", clientSubmit: true, minScore: 0, maxScore: 1000 }] }));
    const server = paymentServerPerSuite(backend, { ...simulatorRewardEnv(), LEADERBOARDS_FILE: boards });
    let h: Harness;
    before(() => (h = server.h));

    const eventsOf = async (userId: string, name: string): Promise<AnalyticsEvent[]> => {
      await h.services.analytics.writer.flush();
      const all = await h.services.analytics.store.scan({ from: "2000-01-01T00:00:00.000Z", to: "2100-01-01T00:00:00.000Z", limit: 10_000 });
      return all.filter((e) => e.userId === userId && e.name === name);
    };
    const until = async (what: string, check: () => Promise<boolean>) => {
      for (let i = 0; i < 100; i++) {
        if (await check()) return;
        await sleep(50);
      }
      throw new Error(`timed out waiting for ${what}`);
    };

    it("a delivered coin order, a soft purchase and a verified ad: one event each, however often replayed", async () => {
      const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("fact")}`);
      assert.equal(login.status, 200);
      const { openid, token } = login.body.data as { openid: string; token: string };
      const userId = login.body.data.user.id as string;
      const headers = { authorization: `Bearer ${token}` };

      await fetch(`${h.simulator.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid, balance: 100 }) });
      const orderId = unique("ord");
      for (let i = 0; i < 3; i++) assert.equal((await h.request("POST", "/api/payments/orders", { orderId, itemId: "sword", coins: 30 }, headers)).body.data.state, "delivered");

      await h.services.economy.rewards.grant({ appId: "default", userId, source: "operator", sourceId: unique("seed"), currencies: { gems: 10 } });
      const purchaseId = unique("buy");
      assert.equal((await h.request("POST", "/api/economy/purchases", { purchaseId, itemId: "potion" }, headers)).status, 201);
      assert.equal((await h.request("POST", "/api/economy/purchases", { purchaseId, itemId: "potion" }, headers)).status, 200);

      const notifyUrl = `${h.baseUrl}/api/minigame/wechat/ad-reward`;
      const control = (body: Record<string, unknown>) => fetch(`${h.simulator.url}/__simulator/ad-reward`, { method: "POST", body: JSON.stringify(body) }).then((r) => r.json() as Promise<Record<string, string>>);
      const { transactionId } = await control({ platform: "wechat", openid, adUnitId: "adunit-example", watchId: unique("w"), notifyUrl });
      await until("the ad view", async () => (await eventsOf(userId, "ad_reward")).length > 0);
      await Promise.all(Array.from({ length: 3 }, () => control({ platform: "wechat", openid, adUnitId: "adunit-example", transactionId, notifyUrl })));

      const orders = await eventsOf(userId, "order_delivered");
      assert.equal(orders.length, 1);
      assert.deepEqual([orders[0]!.app, orders[0]!.platform, orders[0]!.props], ["default", "wechat", { kind: "coin_spend", itemId: "sword", revenue: 30, unit: "wechat_coins", coins: 30 }]);
      const purchases = await eventsOf(userId, "soft_purchase");
      assert.equal(purchases.length, 1);
      assert.deepEqual(purchases[0]!.props, { itemId: "potion", quantity: 1, cost_gems: 10 });
      assert.equal(purchases[0]!.platform, "wechat");
      const ads = await eventsOf(userId, "ad_reward");
      assert.deepEqual(ads.map((e) => [e.platform, e.props.adUnitId, e.props.granted]), [["wechat", "adunit-example", true]]);
      // The ad's gems are a soft-currency source of the day: one event beside ad_reward, as the ledger has them.
      const adEntry = (await h.services.economy.store.entries("default", userId)).find((e) => e.source === "ad_reward")!;
      const granted = await eventsOf(userId, "currency_granted");
      assert.deepEqual(granted.map((e) => [e.props.source, e.props.sourceId, e.props.currency_gems]), [["ad_reward", adEntry.sourceId, adEntry.currencies.gems]]);
      assert.ok((adEntry.currencies.gems ?? 0) > 0);
    });

    it("a gift pack, a mail claim and an operator's grant: one event each however often replayed; a leaderboard submission counted without its score", async () => {
      const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("gifted")}`);
      const userId = login.body.data.user.id as string;
      const headers = { authorization: `Bearer ${login.body.data.token}` };
      const { gifts, mail } = h.services.rewardSources;
      const deliveryId = unique("gift");
      for (let i = 0; i < 2; i++) assert.equal((await gifts.grantPack({ platform: "wechat", app: "default", userId, giftId: "gift-example", deliveryId })).delivered, true);
      const mailId = unique("m");
      await mail.send({ app: "default", userId, title: "Sorry", attachments: { currencies: { gold: 5 } }, sender: "ops", mailId });
      const claims = await Promise.all([1, 2].map(() => h.request("POST", `/api/mail/${mailId}/claim`, undefined, headers)));
      assert.deepEqual(claims.map((c) => c.status), [200, 200]);
      const grantId = unique("op");
      for (let i = 0; i < 2; i++) await h.services.economy.rewards.grant({ appId: "default", userId, source: "operator", sourceId: grantId, currencies: { gold: 7 }, reason: "apology" });
      for (const score of [10, 5]) assert.equal((await h.request("POST", "/api/leaderboards/highscores/scores", { score }, headers)).status, 200);

      const giftsSeen = await eventsOf(userId, "gift_granted");
      assert.equal(giftsSeen.length, 1);
      assert.deepEqual([giftsSeen[0]!.app, giftsSeen[0]!.platform, giftsSeen[0]!.props.source, giftsSeen[0]!.props.sourceId], ["default", "wechat", "gift_pack", deliveryId]);
      assert.deepEqual((await eventsOf(userId, "mail_claimed")).map((e) => e.props), [{ source: "mail", sourceId: `${mailId}:${userId}`, currency_gold: 5, items: 0 }]);
      assert.deepEqual((await eventsOf(userId, "operator_grant")).map((e) => e.props), [{ source: "operator", sourceId: grantId, currency_gold: 7, items: 0 }]);
      const submits = await eventsOf(userId, "leaderboard_submit");
      assert.deepEqual(submits.map((e) => e.props).sort((a, b) => Number(b.improved) - Number(a.improved)), [{ board: "highscores", improved: true }, { board: "highscores", improved: false }]);
    });
  });
}
