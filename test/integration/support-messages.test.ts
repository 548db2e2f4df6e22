/**
 * Customer-service messages end to end over real HTTP and every store: WeChat's message push (safe
 * mode, the gift push's URL and keys) as the simulator and a hand-sealed push send it, kept per
 * player by the SupportDesk in the real store; the same MsgId pushed again (new nonce, and 10 at
 * once) is one message, and so is the same push sent twice; a forged signature, plain mode, another
 * app's push and malformed bodies are refused with nothing kept. Replies go through WeChat's custom/send on the simulator, once per
 * replyId, inside its 48-hour window.
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
import { createSupportStore } from "../../src/adapters/store/create-support-store";
import type { SupportMessageStore } from "../../src/core/ports/support-messages";
import { AppError } from "../../src/core/errors";
import { rewardPushRoutes, type RewardApp } from "../../src/api/reward-push-routes";
import { createLogger } from "../../src/logging/logger";
import { MemoryCache } from "../../src/adapters/cache/memory-cache";
import { pushSignature, PUSH_MAX_SKEW_SEC, sealPush } from "../../src/platforms/wechat/wechat-push";
import { sendCustomerServiceText } from "../../src/platforms/wechat/wechat-support";
import { sendDouyinSupportText } from "../../src/platforms/douyin/douyin-support";
import { signDouyinPush } from "../../src/platforms/douyin/douyin-gift";
import { PushNonces } from "../../src/services/push-nonces";
import { SupportDesk } from "../../src/services/growth/support-desk";
import { simulatorRewardKeys } from "../../src/simulator/rewards/reward-keys";
import { defaultSimulatorApps, simulatorBaseUrl, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { createTestMongoDatabase } from "../support/mongo";
import { createTestDatabase } from "../support/postgres";
import { testDatabaseUrl, testMongoUrl } from "../support/services";

const implementations: Array<{ name: string; prepare(): Promise<{ config: AppConfig["store"]; release(): Promise<void> }> }> = [
  {
    name: "SQLite",
    async prepare() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-support-http-"));
      return { config: { kind: "sqlite", path: path.join(dir, "users.sqlite"), synchronous: "NORMAL" }, release: async () => fs.rmSync(dir, { recursive: true, force: true }) };
    },
  },
];
if (testDatabaseUrl) {
  const baseUrl = testDatabaseUrl;
  implementations.push({ name: "PostgreSQL", async prepare() { const db = await createTestDatabase(baseUrl); return { config: { kind: "postgres", url: db.url, connectTimeoutMs: 2000, acquireTimeoutMs: 5000, queryTimeoutMs: 5000 }, release: () => db.drop() }; } });
}
if (testMongoUrl) {
  const baseUrl = testMongoUrl;
  implementations.push({ name: "MongoDB", async prepare() { const db = createTestMongoDatabase(baseUrl); return { config: { kind: "mongodb", url: db.url, connectTimeoutMs: 2000, acquireTimeoutMs: 5000, queryTimeoutMs: 10000 }, release: () => db.drop() }; } });
}

const WX = defaultSimulatorApps().find((a) => a.platform === "wechat")!;
const DY = defaultSimulatorApps().find((a) => a.platform === "douyin")!;
const APP = "default";
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out");
    await wait(20);
  }
}

for (const impl of implementations) {
  describe(`customer-service messages over HTTP: ${impl.name}`, function () {
    this.timeout(60_000);
    let store: SupportMessageStore;
    let release: () => Promise<void>;
    let server: http.Server;
    let base: string;
    let sim: RunningSimulator;
    let desk: SupportDesk;
    let token: string;
    let douyinToken: string;
    const players = new Map<string, string>();
    const userFor = (openid: string) => {
      if (!players.has(openid)) players.set(openid, crypto.randomUUID());
      return players.get(openid)!;
    };
    const keys = simulatorRewardKeys("wechat", WX.appId);

    before(async () => {
      const prepared = await impl.prepare();
      release = prepared.release;
      store = await createSupportStore(prepared.config);
      sim = await startSimulator({ port: 0 });
      const tokenReply = await fetch(`${simulatorBaseUrl(sim.url, "wechat")}/cgi-bin/stable_token`, { method: "POST", body: JSON.stringify({ grant_type: "client_credential", appid: WX.appId, secret: WX.appSecret }) });
      token = ((await tokenReply.json()) as { access_token: string }).access_token;
      const dyReply = await fetch(`${simulatorBaseUrl(sim.url, "douyin")}/mgplatform/api/apps/v2/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ grant_type: "client_credential", appid: DY.appId, secret: DY.appSecret }) });
      const dyBody = (await dyReply.json()) as { data?: { access_token: string }; access_token?: string };
      douyinToken = dyBody.data?.access_token ?? dyBody.access_token ?? "";
      const logger = createLogger({ level: "silent" });
      const settings = { appId: WX.appId, appSecret: WX.appSecret, apiBaseUrl: simulatorBaseUrl(sim.url, "wechat"), extra: {} };
      desk = new SupportDesk({
        store,
        userIdFor: async (_platform, _app, openid) => (openid.startsWith("stranger") ? undefined : userFor(openid)),
        openidOf: async (_platform, _app, userId) => [...players].find(([, id]) => id === userId)?.[0] ?? "",
        send: (platform, _app, openid, text, reply) =>
          platform === "wechat"
            ? sendCustomerServiceText({ settings, timeoutMs: 2000, busyRetries: 0, logger }, { accessToken: token, openid, text })
            : sendDouyinSupportText({ settings: { appId: DY.appId, appSecret: DY.appSecret, apiBaseUrl: simulatorBaseUrl(sim.url, "douyin"), extra: {} }, timeoutMs: 2000, busyRetries: 0, logger }, { accessToken: douyinToken, conversationId: reply.to.conversationId, messageId: reply.messageId, text, nowSec: Math.floor(Date.now() / 1000) }),
        logger,
      });
      const app = express();
      const rewardApp: RewardApp = { app: APP, appId: WX.appId, giftPush: { token: keys.giftPushToken, encodingAesKey: keys.giftPushAesKey } };
      const douyinApp: RewardApp = { app: APP, appId: DY.appId, giftPush: { token: simulatorRewardKeys("douyin", DY.appId).giftPushToken } };
      app.use("/api/minigame", rewardPushRoutes({ platforms: [{ name: "wechat" }, { name: "douyin" }], rewardApps: (p) => (p === "wechat" ? [rewardApp] : [douyinApp]), ads: {} as never, gifts: {} as never, support: desk, nonces: new PushNonces(new MemoryCache(), PUSH_MAX_SKEW_SEC), logger }));
      server = http.createServer(app);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      sim.payments.setDefaultNotifyUrl((platform) => `${base}/api/minigame/${platform}/push`);
    });
    after(async () => {
      await new Promise((resolve) => server?.close(resolve));
      await sim?.close();
      await store?.close();
      await release?.();
    });

    const sealed = (message: Record<string, unknown>, options: { nonce?: string; token?: string; appId?: string } = {}) => {
      const timestamp = String(Math.floor(Date.now() / 1000));
      return sealPush({ token: options.token ?? keys.giftPushToken, encodingAesKey: keys.giftPushAesKey }, options.appId ?? WX.appId, JSON.stringify(message), timestamp, options.nonce ?? crypto.randomBytes(6).toString("hex"));
    };
    const push = async (s: { query: URLSearchParams; body: string }) => {
      const res = await fetch(`${base}/api/minigame/wechat/gift-push?${s.query}`, { method: "POST", headers: { "content-type": "application/json" }, body: s.body });
      return ((await res.json()) as { ErrCode: number }).ErrCode;
    };
    const text = (openid: string, msgId: number, content: string) => ({ ToUserName: "gh_x", FromUserName: openid, CreateTime: Math.floor(Date.now() / 1000), MsgType: "text", Content: content, MsgId: msgId });

    it("keeps a player's messages the simulator pushes (text, image, page, entering), each once", async () => {
      const openid = `o-${crypto.randomUUID()}`;
      const userId = userFor(openid);
      for (const [kind, body] of [["enter", "from-shop"], ["text", "my gems vanished"], ["image", ""], ["page", "Shop"]] as const) {
        const res = await fetch(`${sim.url}/__simulator/support-message`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid, kind, text: body }) });
        assert.equal(res.status, 200);
      }
      await until(async () => (await desk.conversation(APP, userId)).length === 4);
      const messages = await desk.conversation(APP, userId);
      assert.deepEqual(messages.map((m) => m.kind).sort(), ["enter", "image", "page", "text"]);
      assert.equal(messages.find((m) => m.kind === "text")?.text, "my gems vanished");
      assert.equal(messages.find((m) => m.kind === "enter")?.detail.sessionFrom, "from-shop");
      assert.ok(messages.every((m) => m.direction === "in" && m.platform === "wechat"));
    });

    it("a MsgId pushed again, 10 times at once, is one message; so is the very same push sent twice", async () => {
      const openid = `o-${crypto.randomUUID()}`;
      const msgId = crypto.randomInt(1e12, 9e12);
      const codes = await Promise.all(Array.from({ length: 10 }, () => push(sealed(text(openid, msgId, "again and again")))));
      assert.deepEqual(new Set(codes), new Set([0]));
      const once = sealed(text(openid, msgId + 1, "second"));
      assert.equal(await push(once), 0);
      assert.equal(await push(once), 0, "the very same push again (WeChat's retry may reuse the query): acknowledged");
      assert.deepEqual((await desk.conversation(APP, userFor(openid))).map((m) => m.text), ["again and again", "second"]);
    });

    it("refuses forged, plain-mode, other-app and malformed pushes with nothing kept; strangers are acknowledged, not kept", async () => {
      const openid = `o-${crypto.randomUUID()}`;
      const userId = userFor(openid);
      assert.equal(await push(sealed(text(openid, 1, "forged"), { token: "not-the-token" })), 40001);
      const tampered = sealed(text(openid, 2, "tampered"));
      tampered.query.set("msg_signature", pushSignature(keys.giftPushToken, "1", "2", "x"));
      assert.equal(await push(tampered), 40001);
      const timestamp = String(Math.floor(Date.now() / 1000));
      const plain = { query: new URLSearchParams({ signature: pushSignature(keys.giftPushToken, timestamp, "n1"), timestamp, nonce: "n1" }), body: JSON.stringify(text(openid, 3, "plain")) };
      assert.equal(await push(plain), 40011);
      assert.equal(await push(sealed(text(openid, 4, "elsewhere"), { appId: "wx-another-app" })), 40004);
      for (const bad of [{ ...text(openid, 5, ""), Content: "" }, { ...text(openid, 6, "x"), MsgId: undefined }, { ...text(openid, 7, "x"), FromUserName: "" }, { ...text(openid, 8, "x"), CreateTime: "yesterday" }, { ...text(openid, 9, "x"), MsgType: "image" }]) {
        assert.equal(await push(sealed(bad)), 40003, JSON.stringify(bad));
      }
      assert.equal(await push(sealed(text(`stranger-${openid}`, 10, "who am I"))), 0);
      assert.deepEqual(await desk.conversation(APP, userId), []);
      assert.deepEqual(await store.listByUser(userId), []);
    });

    it("sends an operator's reply through custom/send once per replyId, kept in the conversation", async () => {
      const openid = `o-${crypto.randomUUID()}`;
      const userId = userFor(openid);
      await assert.rejects(desk.reply(APP, userId, { text: "hello?", replyId: "r1", operator: "ann" }), (err: unknown) => err instanceof AppError && err.code === "support_conversation_not_found");
      await fetch(`${sim.url}/__simulator/support-message`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid, text: "help" }) });
      await until(async () => (await desk.conversation(APP, userId)).length === 1);
      const [first, again] = [await desk.reply(APP, userId, { text: "On it", replyId: "r1", operator: "ann" }), await desk.reply(APP, userId, { text: "On it", replyId: "r1", operator: "ann" })];
      assert.deepEqual([first.sent, again.sent], [true, false]);
      const replies = async () => ((await (await fetch(`${sim.url}/__simulator/support-replies?openid=${openid}`)).json()) as { replies: Array<{ content: string }> }).replies;
      assert.deepEqual((await replies()).map((r) => r.content), ["On it"]);
      const conversation = await desk.conversation(APP, userId);
      assert.deepEqual(conversation.map((m) => [m.direction, m.operator]), [["in", null], ["out", "ann"]]);
      for (let i = 2; i <= 5; i++) await desk.reply(APP, userId, { text: `more ${i}`, replyId: `r${i}`, operator: "ann" });
      await assert.rejects(desk.reply(APP, userId, { text: "sixth", replyId: "r6", operator: "ann" }), (err: unknown) => err instanceof AppError && err.code === "support_reply_window_closed");
      assert.equal((await replies()).length, 5);
      assert.equal((await desk.conversation(APP, userId)).length, 6, "a refused reply is not kept");
    });

    it("Douyin: its IM push kept once per msg_id (64-bit ids intact), forged and malformed refused, a reply through reply_user_text", async () => {
      const openid = `dy-${crypto.randomUUID()}`;
      const userId = userFor(openid);
      const pushed = await fetch(`${sim.url}/__simulator/support-message`, { method: "POST", body: JSON.stringify({ platform: "douyin", openid, text: "充值没到账" }) });
      const { msgId, conversationId } = (await pushed.json()) as { msgId: string; conversationId: string };
      await until(async () => (await desk.conversation(APP, userId)).length === 1);
      const [kept] = await desk.conversation(APP, userId);
      assert.deepEqual([kept.platform, kept.messageId, kept.text, kept.detail.conversationId], ["douyin", msgId, "充值没到账", conversationId]);
      const dyKey = simulatorRewardKeys("douyin", DY.appId).giftPushToken;
      const raw = `{"app_id":"${DY.appId}","conversation_id":${conversationId},"msg_id":${msgId},"create_time":${Date.now()},"msg_type":"text","open_id":"${openid}","content":"{\\"text\\":\\"again\\"}"}`;
      const send = (body: string, token = dyKey) => fetch(`${base}/api/minigame/douyin/gift-push`, { method: "POST", headers: { "content-type": "application/json", ...signDouyinPush(token, DY.appId, "douyin_microgame_im", body, Date.now()) }, body });
      assert.deepEqual(await Promise.all(Array.from({ length: 5 }, async () => (await send(raw)).status)), [200, 200, 200, 200, 200]);
      assert.equal((await send(raw.replace(msgId, `${msgId}1`), "forged-token")).status, 401);
      assert.equal((await send(`{"app_id":"${DY.appId}","msg_id":1,"open_id":"${openid}","msg_type":"text","content":"x","create_time":1}`)).status, 400, "no conversation_id");
      assert.deepEqual((await desk.conversation(APP, userId)).map((m) => m.text), ["充值没到账"], "the repeats and the refused are not kept");
      const sent = await desk.reply(APP, userId, { text: "已补发", replyId: "dy1", operator: "ann" });
      assert.equal(sent.sent, true);
      const replies = ((await (await fetch(`${sim.url}/__simulator/support-replies?openid=${openid}`)).json()) as { replies: Array<{ content: string }> }).replies;
      assert.deepEqual(replies.map((r) => r.content), ["已补发"]);
    });
  });
}
