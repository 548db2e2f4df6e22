/**
 * The reward sources end to end over real HTTP and every store: the simulator plays WeChat's ad
 * server and the platforms' gift pushes against the callback routes; the ad views and mail live in
 * the real store (SQLite, PostgreSQL, MongoDB on FerretDB); grants go to a RewardGranter that keeps
 * the port's contract (test/support/memory-reward-granter.ts). 20 replays, concurrent and late,
 * grant once; forged, stale, other-app and malformed messages are refused with nothing recorded.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import express from "express";
import type { AppConfig } from "../../src/config/config";
import { createRewardStores, type RewardStores } from "../../src/adapters/store/create-reward-stores";
import { rewardPushRoutes, type RewardApp } from "../../src/api/reward-push-routes";
import { createLogger } from "../../src/logging/logger";
import { adSignature, encryptAdReward } from "../../src/platforms/wechat/wechat-ad-reward";
import { MemoryCache } from "../../src/adapters/cache/memory-cache";
import { pushSignature, PUSH_MAX_SKEW_SEC } from "../../src/platforms/wechat/wechat-push";
import { PushNonces } from "../../src/services/push-nonces";
import { signDouyinPush } from "../../src/platforms/douyin/douyin-gift";
import { AdRewards } from "../../src/services/rewards/ad-rewards";
import { GiftRewards } from "../../src/services/rewards/gift-rewards";
import { MailService } from "../../src/services/rewards/mail-service";
import type { RewardCatalog } from "../../src/services/rewards/reward-catalog";
import { RewardSim } from "../../src/simulator/rewards/reward-sim";
import { simulatorRewardKeys } from "../../src/simulator/rewards/reward-keys";
import { MemoryRewardGranter } from "../support/memory-reward-granter";
import { giftEvent, sealedGiftPush } from "../support/wechat-gift-pushes";
import { createTestMongoDatabase } from "../support/mongo";
import { createTestDatabase } from "../support/postgres";
import { testDatabaseUrl, testMongoUrl } from "../support/services";

interface Implementation {
  name: string;
  prepare(): Promise<{ config: AppConfig["store"]; release(): Promise<void> }>;
}
const implementations: Implementation[] = [
  {
    name: "SQLite",
    async prepare() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-reward-sources-"));
      return { config: { kind: "sqlite", path: path.join(dir, "users.sqlite"), synchronous: "FULL" }, release: async () => fs.rmSync(dir, { recursive: true, force: true }) };
    },
  },
];
if (testDatabaseUrl) {
  const baseUrl = testDatabaseUrl;
  implementations.push({
    name: "PostgreSQL",
    async prepare() {
      const db = await createTestDatabase(baseUrl);
      return { config: { kind: "postgres", url: db.url, connectTimeoutMs: 1000, acquireTimeoutMs: 3000, queryTimeoutMs: 2000 }, release: () => db.drop() };
    },
  });
}
if (testMongoUrl) {
  const baseUrl = testMongoUrl;
  implementations.push({
    name: "MongoDB",
    async prepare() {
      const db = createTestMongoDatabase(baseUrl);
      return { config: { kind: "mongodb", url: db.url, connectTimeoutMs: 1000, acquireTimeoutMs: 3000, queryTimeoutMs: 5000 }, release: () => db.drop() };
    },
  });
}

const WX_APP = "wx-reward-app";
const DY_APP = "tt-reward-app";
const OTHER_WX_APP = "wx-other-app";
const catalog: RewardCatalog = {
  adUnit: async (_app, adUnitId) => (adUnitId === "adunit-example" ? { adUnitId, grants: { currencies: { gold: 10 } }, dailyCap: 3 } : undefined),
  giftPack: async (_app, giftId) => (giftId === "daily-pack" ? { giftId, grants: { currencies: { gems: 5 }, items: [{ itemId: "potion", count: 2 }] } } : undefined),
};
const json = (r: Response) => r.json() as Promise<Record<string, unknown>>;
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out");
    await wait(20);
  }
}

for (const impl of implementations) {
  describe(`reward sources over HTTP: ${impl.name}`, function () {
    this.timeout(60_000);
    let stores: RewardStores;
    let release: () => Promise<void>;
    let server: http.Server;
    let base: string;
    let granter: MemoryRewardGranter;
    let sim: RewardSim;
    const players = new Map<string, string>();
    const userFor = (openid: string) => {
      if (!players.has(openid)) players.set(openid, crypto.randomUUID());
      return players.get(openid)!;
    };

    before(async () => {
      const prepared = await impl.prepare();
      release = prepared.release;
      stores = await createRewardStores(prepared.config);
      granter = new MemoryRewardGranter();
      const logger = createLogger({ level: "silent" });
      const userIdFor = async (_platform: string, _app: string, openid: string) => (openid.startsWith("stranger") ? undefined : userFor(openid));
      const ads = new AdRewards({ views: stores, rewards: granter, catalog, userIdFor, logger, dayOffsetHours: 8 });
      const gifts = new GiftRewards({ rewards: granter, catalog, userIdFor, logger });
      const keysOf = (platform: string, appId: string): RewardApp => {
        const k = simulatorRewardKeys(platform, appId);
        return { app: `key-${appId}`, appId, ad: platform === "wechat" ? { token: k.adToken, encodingAesKey: k.adAesKey } : undefined, giftPush: { token: k.giftPushToken, encodingAesKey: k.giftPushAesKey } };
      };
      const app = express();
      const nonces = new PushNonces(new MemoryCache(), PUSH_MAX_SKEW_SEC);
      const rewardApps = (p: string) => (p === "wechat" ? [keysOf("wechat", WX_APP)] : [keysOf("douyin", DY_APP)]);
      app.use("/api/minigame", rewardPushRoutes({ platforms: [{ name: "wechat" }, { name: "douyin" }], rewardApps, ads, gifts, nonces, logger }));
      server = http.createServer(app);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      sim = new RewardSim({ defaultAppId: (p) => (p === "wechat" ? WX_APP : DY_APP), defaultUrl: (p, route) => `${base}/api/minigame/${p}/${route}`, retryScale: 0.001 });
    });
    after(async () => {
      sim?.close();
      await new Promise((resolve) => server?.close(resolve));
      await stores?.close();
      await release?.();
    });

    const post = (url: string, body: string, headers: Record<string, string> = {}) => fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });

    function adPayload(openid: string, transactionId: string, opts: { at?: number; appId?: string; adUnitId?: string; custom?: string } = {}) {
      const k = simulatorRewardKeys("wechat", opts.appId ?? WX_APP);
      const custom = opts.custom ?? JSON.stringify({ adUnitId: opts.adUnitId ?? "adunit-example", watchId: `w-${transactionId}` });
      const encrypt = encryptAdReward(k.adAesKey, { transaction_id: transactionId, user_id: openid, reward_item: "x", reward_amount: 1, custom_data: custom });
      const timestamp = String(opts.at ?? Date.now());
      return JSON.stringify({ signature: adSignature(k.adToken, timestamp, "42", encrypt), timestamp, nonce: "42", encrypt });
    }

    it("a simulated ad view is granted once; 20 concurrent and 20 late replays of its callback change nothing", async () => {
      const openid = `viewer-${crypto.randomBytes(4).toString("hex")}`;
      const { body } = sim.adReward({ platform: "wechat", openid, adUnitId: "adunit-example", watchId: "w-sim" });
      const transactionId = (body as { transactionId: string }).transactionId;
      await until(() => sim.delivery("ad", transactionId)?.acknowledged === true);
      assert.equal(sim.delivery("ad", transactionId)?.valid, true);
      const payload = adPayload(openid, transactionId);
      const answers = await Promise.all(Array.from({ length: 20 }, () => post(`${base}/api/minigame/wechat/ad-reward`, payload).then(json)));
      assert.ok(answers.every((a) => a.is_valid === true));
      for (let i = 0; i < 20; i++) await post(`${base}/api/minigame/wechat/ad-reward`, payload);
      const grants = granter.grantsOf("ad_reward").filter((g) => g.sourceId === transactionId);
      assert.equal(grants.length, 1);
      assert.deepEqual(grants[0].currencies, { gold: 10 });
      assert.equal(grants[0].appId, `key-${WX_APP}`);
      assert.equal((await stores.findByWatch(`key-${WX_APP}`, userFor(openid), "w-sim"))?.transactionId, transactionId);
    });

    it("forged, stale, other-app and malformed callbacks are refused and nothing is recorded", async () => {
      const openid = `forger-${crypto.randomBytes(4).toString("hex")}`;
      const before = granter.calls;
      const good = JSON.parse(adPayload(openid, "tx-forged")) as Record<string, string>;
      const variants = [
        JSON.stringify({ ...good, signature: "f".repeat(64) }),
        adPayload(openid, "tx-stale", { at: Date.now() - 3_600_000 }),
        adPayload(openid, "tx-other", { appId: OTHER_WX_APP }),
        adPayload(openid, "tx-custom", { custom: "not-json" }),
        adPayload(openid, "tx-unit", { adUnitId: "adunit-unknown" }),
        adPayload(`stranger-${openid}`, "tx-stranger"),
        "{not json",
        JSON.stringify({ ...good, encrypt: "AAAA" }),
      ];
      for (const body of variants) {
        const answer = await post(`${base}/api/minigame/wechat/ad-reward`, body).then(json);
        assert.equal(answer.is_valid, false, body);
      }
      assert.equal(granter.calls, before);
      assert.deepEqual(await stores.listForUser(`key-${WX_APP}`, userFor(openid)), []);
    });

    it("grants at most the unit's daily cap of concurrent views; the rest are recorded as capped", async () => {
      const openid = `binger-${crypto.randomBytes(4).toString("hex")}`;
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => post(`${base}/api/minigame/wechat/ad-reward`, adPayload(openid, `tx-cap-${openid}-${i}`)).then(json)));
      assert.equal(answers.filter((a) => a.is_valid === true).length, 3);
      assert.equal(granter.applied.filter((g) => g.userId === userFor(openid)).length, 3);
      assert.equal((await stores.listForUser(`key-${WX_APP}`, userFor(openid))).filter((v) => v.slot === null).length, 5);
    });

    it("a WeChat gift pack is granted once per OrderId: the simulator's push and 20 replays", async () => {
      const openid = `gifted-${crypto.randomBytes(4).toString("hex")}`;
      const { body } = sim.gift({ platform: "wechat", openid, giftId: "daily-pack" });
      const orderId = (body as { orderId: string }).orderId;
      await until(() => sim.delivery("gift", orderId)?.acknowledged === true);
      const push = sealedGiftPush(WX_APP, { orderId, openid, giftId: "daily-pack" });
      const url = `${base}/api/minigame/wechat/gift-push?${push.query}`;
      const answers = await Promise.all(Array.from({ length: 20 }, () => post(url, push.body).then(json)));
      assert.ok(answers.every((a) => a.ErrCode === 0));
      const grants = granter.grantsOf("gift_pack").filter((g) => g.sourceId === orderId);
      assert.equal(grants.length, 1);
      assert.deepEqual(grants[0].items, [{ itemId: "potion", count: 2 }]);
      // Forged, stale, unknown pack, malformed, another app's sealing, the same query with another sealed body: refused, nothing granted.
      const before = granter.calls;
      const fresh = (fields: { orderId: string; giftId?: string; openid?: string }, options = {}) => sealedGiftPush(WX_APP, { openid, giftId: "daily-pack", ...fields }, options);
      const send = (p: { query: string; body: string }) => post(`${base}/api/minigame/wechat/gift-push?${p.query}`, p.body).then(json);
      const forgedPush = fresh({ orderId: "order-forged" });
      const forged = await send({ ...forgedPush, query: forgedPush.query.replace(/msg_signature=[0-9a-f]+/, "msg_signature=deadbeef") });
      const stale = await send(fresh({ orderId: "order-stale" }, { timestampSec: Math.floor(Date.now() / 1000) - 3600 }));
      const unknown = await send(fresh({ orderId: "order-unknown", giftId: "no-such-pack" }));
      const malformed = await send({ query: fresh({ orderId: "order-malformed" }).query, body: "{" });
      const otherApp = sealedGiftPush(OTHER_WX_APP, { orderId: "order-other", openid, giftId: "daily-pack" });
      const replayedQuery = await send({ query: push.query, body: fresh({ orderId: "order-replayed" }).body });
      for (const answer of [forged, stale, unknown, malformed, await send(otherApp), replayedQuery]) assert.notEqual(answer.ErrCode, 0, JSON.stringify(answer));
      assert.equal(granter.calls, before);
    });

    it("a WeChat gift push in plain mode is refused, the genuine one and any body under its captured URL: nothing granted", async () => {
      const openid = `plain-${crypto.randomBytes(4).toString("hex")}`;
      const { body } = sim.gift({ platform: "wechat", openid, giftId: "daily-pack", safeMode: false });
      const orderId = (body as { orderId: string }).orderId;
      await until(() => (sim.delivery("gift", orderId)?.attempts ?? 0) >= 2);
      assert.equal(sim.delivery("gift", orderId)?.acknowledged, false);
      const k = simulatorRewardKeys("wechat", WX_APP);
      const ts = String(Math.floor(Date.now() / 1000));
      // A URL WeChat signed (only Token, timestamp and nonce), and a body of the attacker's choosing.
      const url = `${base}/api/minigame/wechat/gift-push?signature=${pushSignature(k.giftPushToken, ts, "n")}&timestamp=${ts}&nonce=n`;
      const forgedBody = giftEvent({ orderId: "order-thief", openid: "thief", giftId: "daily-pack" });
      const answers = [await post(url, forgedBody).then(json), await post(url, forgedBody.replace("order-thief", "order-thief-2")).then(json)];
      assert.deepEqual(answers.map((a) => [a.ErrCode, a.ErrMsg]), [[40011, "plain_mode"], [40011, "plain_mode"]]);
      assert.equal(granter.grantsOf("gift_pack").filter((g) => g.sourceId === orderId || g.sourceId.startsWith("order-thief")).length, 0);
    });

    it("a Douyin gift code is granted once: the simulator's push and 20 replays; forged and other-app pushes are refused", async () => {
      const openid = `coder-${crypto.randomBytes(4).toString("hex")}`;
      const { body } = sim.gift({ platform: "douyin", openid, giftId: "daily-pack" });
      const giftCode = (body as { giftCode: string }).giftCode;
      await until(() => sim.delivery("gift", giftCode, "douyin")?.acknowledged === true);
      const k = simulatorRewardKeys("douyin", DY_APP);
      const text = JSON.stringify({ gift_id: "daily-pack", gift_code: giftCode, open_id: openid, prop_list: [], env_type: "production", send_time: 1 });
      const headers = signDouyinPush(k.giftPushToken, DY_APP, "gift_delivery", text, Date.now());
      const statuses = await Promise.all(Array.from({ length: 20 }, () => post(`${base}/api/minigame/douyin/gift-push`, text, headers).then((r) => r.status)));
      assert.ok(statuses.every((s) => s === 200));
      assert.equal(granter.grantsOf("gift_code").filter((g) => g.sourceId === giftCode).length, 1);
      const before = granter.calls;
      const other = simulatorRewardKeys("douyin", "tt-someone-else");
      const forgedText = text.replace(giftCode, "code-forged");
      const refusals = [
        await post(`${base}/api/minigame/douyin/gift-push`, forgedText, signDouyinPush(other.giftPushToken, "tt-someone-else", "gift_delivery", forgedText, Date.now())),
        await post(`${base}/api/minigame/douyin/gift-push`, forgedText, headers),
        await post(`${base}/api/minigame/douyin/gift-push`, forgedText, signDouyinPush(k.giftPushToken, DY_APP, "gift_delivery", forgedText, Date.now() - 3_600_000)),
        await post(`${base}/api/minigame/douyin/gift-push`, "[]", signDouyinPush(k.giftPushToken, DY_APP, "gift_delivery", "[]", Date.now())),
      ];
      for (const r of refusals) assert.notEqual(r.status, 200);
      assert.equal(granter.calls, before);
    });

    it("a mail to all is claimed once per player: 20 concurrent claims and a late one grant once; expired and others' mail refused", async () => {
      const mail = new MailService({ store: stores, rewards: granter, defaultExpiryDays: 30 });
      const app = `mail-app-${crypto.randomBytes(4).toString("hex")}`;
      const { mail: sent } = await mail.send({ app, userId: null, title: "Sorry", attachments: { currencies: { gold: 100 } }, sender: "ops" });
      const results = await Promise.all(Array.from({ length: 20 }, () => mail.claim(app, "alice", sent.mailId)));
      assert.equal(results.filter((r) => r.granted).length, 1);
      assert.equal((await mail.claim(app, "alice", sent.mailId)).granted, false);
      assert.equal((await mail.claim(app, "bob", sent.mailId)).granted, true);
      assert.equal(granter.grantsOf("mail").filter((g) => g.sourceId.startsWith(sent.mailId)).length, 2);
      assert.deepEqual(granter.balanceOf(app, "alice"), { gold: 100 });
      const listed = await mail.list(app, "alice");
      assert.equal(listed[0].claimed, true);
      assert.equal((await mail.list(app, "carol"))[0].claimed, false);
      const { mail: personal } = await mail.send({ app, userId: "alice", title: "Just you", attachments: { items: [{ itemId: "sword", count: 1 }] }, sender: "ops" });
      await assert.rejects(mail.claim(app, "bob", personal.mailId), (err: { code?: string }) => err.code === "mail_not_found");
      let clock = Date.now();
      const timed = new MailService({ store: stores, rewards: granter, defaultExpiryDays: 1, now: () => clock });
      const { mail: short } = await timed.send({ app, userId: null, title: "Soon gone", attachments: { currencies: { gold: 1 } }, sender: "ops" });
      clock += 2 * 86_400_000;
      await assert.rejects(timed.claim(app, "dave", short.mailId), (err: { code?: string }) => err.code === "mail_expired");
      assert.equal(granter.grantsOf("mail").filter((g) => g.sourceId.startsWith(short.mailId)).length, 0);
    });

    it("a notice (a season reward already paid) is one mail per origin, listed, and has nothing to claim", async () => {
      const mail = new MailService({ store: stores, rewards: granter, defaultExpiryDays: 30 });
      const app = `notice-app-${crypto.randomBytes(4).toString("hex")}`;
      const notice = { app, userId: "erin", origin: "leaderboard:weekly:3:erin", title: "weekly: rank 1", body: "100 gold", sender: "leaderboard" };
      const sent = await Promise.all(Array.from({ length: 5 }, () => mail.notice(notice)));
      assert.equal(new Set(sent.map((s) => s.mail.mailId)).size, 1);
      assert.equal(sent.filter((s) => s.created).length, 1);
      await mail.notice({ ...notice, origin: "leaderboard:weekly:4:erin" });
      assert.deepEqual((await mail.list(app, "erin")).map((m) => m.title), ["weekly: rank 1", "weekly: rank 1"]);
      const before = granter.calls;
      await assert.rejects(mail.claim(app, "erin", sent[0].mail.mailId), (err: { code?: string }) => err.code === "invalid_request");
      assert.equal(granter.calls, before);
    });
  });
}
