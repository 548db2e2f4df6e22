/**
 * The social platform clients against the simulator over HTTP: what each signs and sends is what
 * the simulator checks, and each refusal maps to the documented error.
 */
import assert from "node:assert/strict";
import { AppError } from "../../src/core/errors";
import { createLogger } from "../../src/logging/logger";
import { createDouyinSocialClient } from "../../src/platforms/douyin/douyin-social";
import { PlatformTokenRejectedError, type PlatformClientDeps } from "../../src/platforms/platform";
import { platformDefinitions } from "../../src/platforms/registry";
import { checkGameChatText } from "../../src/platforms/wechat/wechat-game-content";
import type { SubscribeMessage } from "../../src/platforms/social-port";
import { createWechatSocialClient } from "../../src/platforms/wechat/wechat-social";
import { simulatorBaseUrl, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";

const logger = createLogger({ level: "silent" });
const isCode = (code: string) => (err: unknown) => err instanceof AppError && err.code === code;
let seq = 0;

describe("simulated social APIs", () => {
  let sim: RunningSimulator;
  before(async () => (sim = await startSimulator({ port: 0 })));
  after(() => sim.close());

  const deps = (platform: string): PlatformClientDeps => {
    const { appId, appSecret } = platformDefinitions.find((p) => p.name === platform)!.simulatorApp;
    return { settings: { appId, appSecret, apiBaseUrl: simulatorBaseUrl(sim.url, platform), extra: {} }, timeoutMs: 2000, busyRetries: 0, logger };
  };
  const get = async (path: string) => (await (await fetch(`${sim.url}${path}`)).json()) as any;

  /** A login at the simulator: the player's openid and current session key, and the app's token. */
  async function wechatPlayer() {
    const { appId, appSecret } = platformDefinitions.find((p) => p.name === "wechat")!.simulatorApp;
    const code = `social${Date.now().toString(36)}x${seq++}`;
    const login = await get(`/sns/jscode2session?${new URLSearchParams({ appid: appId, secret: appSecret, js_code: `${code}.1`, grant_type: "authorization_code" })}`);
    const token = await get(`/cgi-bin/token?${new URLSearchParams({ appid: appId, secret: appSecret, grant_type: "client_credential" })}`);
    return { openid: login.openid as string, sessionKey: login.session_key as string, accessToken: token.access_token as string, code };
  }

  async function douyinPlayer() {
    const { appId, appSecret } = platformDefinitions.find((p) => p.name === "douyin")!.simulatorApp;
    const base = simulatorBaseUrl(sim.url, "douyin");
    const login = (await (await fetch(`${base}/mgplatform/api/apps/jscode2session?${new URLSearchParams({ appid: appId, secret: appSecret, code: `dysocial${seq++}.1` })}`)).json()) as any;
    const token = (await (await fetch(`${base}/mgplatform/api/apps/v2/token`, { method: "POST", body: JSON.stringify({ appid: appId, secret: appSecret, grant_type: "client_credential" }) })).json()) as any;
    return { openid: login.openid as string, sessionKey: login.session_key as string, accessToken: token.data.access_token as string, appId };
  }

  it("WeChat storage: a signed write is stored; a wrong key is session_key_rejected; a bad token asks for a heal", async () => {
    const client = createWechatSocialClient(deps("wechat"));
    const p = await wechatPlayer();
    await client.setUserStorage({ ...p, kvList: [{ key: "score", value: "7" }, { key: "名字", value: "值" }] });
    assert.deepEqual((await get(`/__simulator/storage?platform=wechat&openid=${p.openid}`)).kvList, [
      { key: "score", value: "7" },
      { key: "名字", value: "值" },
    ]);
    await assert.rejects(client.setUserStorage({ ...p, sessionKey: "d3JvbmcxMjM0NTY3ODkwMTI=", kvList: [{ key: "a", value: "b" }] }), isCode("session_key_rejected"));
    await assert.rejects(client.setUserStorage({ ...p, accessToken: "f".repeat(96), kvList: [{ key: "a", value: "b" }] }), (e) => e instanceof PlatformTokenRejectedError);
    await client.removeUserStorage({ ...p, keys: ["score"] });
    await assert.rejects(client.removeUserStorage({ ...p, keys: ["score"] }), (e) => isCode("invalid_request")(e) && (e as AppError).data.errcode === 87016);
    assert.deepEqual((await get(`/__simulator/storage?platform=wechat&openid=${p.openid}`)).kvList, [{ key: "名字", value: "值" }]);
  });

  it("WeChat interactive data: configured keys with integer values; others 87081 and 87082", async () => {
    const client = createWechatSocialClient(deps("wechat"));
    const p = await wechatPlayer();
    await client.setUserInteractiveData!({ ...p, kvList: [{ key: "1", value: 5 }] });
    assert.deepEqual((await get(`/__simulator/storage?platform=wechat&openid=${p.openid}`)).interactiveData, [{ key: "1", value: 5 }]);
    await assert.rejects(client.setUserInteractiveData!({ ...p, kvList: [{ key: "45", value: 5 }] }), (e) => (e as AppError).data.errcode === 87081);
    await assert.rejects(client.setUserInteractiveData!({ ...p, kvList: [{ key: "2", value: 2 ** 31 }] }), (e) => (e as AppError).data.errcode === 87082);
  });

  it("WeChat subscribe: one send per grant, then 43101; invalid template 40037, page 41030", async () => {
    const client = createWechatSocialClient(deps("wechat"));
    const p = await wechatPlayer();
    const message: SubscribeMessage = { templateId: "tpl-1", data: { thing1: "ready" }, state: "formal", lang: "zh_CN" };
    const send = (m = message) => client.sendSubscribeMessage!({ accessToken: p.accessToken, appId: "wx", openid: p.openid, message: m });
    await assert.rejects(send(), isCode("subscribe_not_granted"));
    await fetch(`${sim.url}/__simulator/subscribe-grant`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid: p.openid, templateId: "tpl-1", count: 2 }) });
    await send();
    await send();
    await assert.rejects(send(), isCode("subscribe_not_granted"));
    await assert.rejects(send({ ...message, templateId: "invalid-x" }), isCode("subscribe_invalid"));
    await assert.rejects(send({ ...message, page: "invalid/page" }), isCode("subscribe_invalid"));
    const { messages } = await get(`/__simulator/subscribe-messages?platform=wechat&openid=${p.openid}`);
    assert.equal(messages.length, 2);
    assert.deepEqual(messages[0].data, { thing1: { value: "ready" } });
    assert.equal(messages[0].miniprogramState, "formal");
  });

  it("WeChat game chat check: scene 5 on its own counter and limit; risky or pass", async () => {
    const p = await wechatPlayer();
    const before = sim.stats();
    const check = (text: string) => checkGameChatText(deps("wechat"), { accessToken: p.accessToken, openid: p.openid, text, scene: "chat" });
    assert.equal(await check("hello"), "pass");
    assert.equal(await check("a simulator-risky line"), "risky");
    assert.equal(await check("simulator-review maybe"), "pass");
    const after = sim.stats();
    assert.equal(after.gameContentCheck.wechat - before.gameContentCheck.wechat, 3);
    assert.equal(after.contentCheck.wechat, before.contentCheck.wechat);
  });

  it("Douyin storage and notify: signed with the Douyin key; refusals mapped", async () => {
    const client = createDouyinSocialClient(deps("douyin"));
    const p = await douyinPlayer();
    await client.setUserStorage({ ...p, kvList: [{ key: "score", value: "1" }] });
    assert.deepEqual((await get(`/__simulator/storage?platform=douyin&openid=${p.openid}`)).kvList, [{ key: "score", value: "1" }]);
    await assert.rejects(client.setUserStorage({ ...p, sessionKey: "d3JvbmcxMjM0NTY3ODkwMTI=", kvList: [{ key: "a", value: "b" }] }), isCode("session_key_rejected"));
    await assert.rejects(client.setUserStorage({ ...p, accessToken: `0801121${"0".repeat(64)}`, kvList: [{ key: "a", value: "b" }] }), (e) => e instanceof PlatformTokenRejectedError);
    const message = { templateId: "tpl-d", data: { thing1: "ready" }, state: "formal" as const, lang: "zh_CN" };
    const send = () => client.sendSubscribeMessage!({ accessToken: p.accessToken, appId: p.appId, openid: p.openid, message });
    await assert.rejects(send(), isCode("subscribe_not_granted"));
    await fetch(`${sim.url}/__simulator/subscribe-grant`, { method: "POST", body: JSON.stringify({ platform: "douyin", openid: p.openid, templateId: "tpl-d" }) });
    await send();
    await assert.rejects(send(), isCode("subscribe_not_granted"));
  });

  it("controls refuse missing parameters", async () => {
    assert.equal((await fetch(`${sim.url}/__simulator/storage?platform=wechat`)).status, 400);
    assert.equal((await fetch(`${sim.url}/__simulator/subscribe-grant`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid: "o", templateId: "t", count: 0 }) })).status, 400);
  });
});
