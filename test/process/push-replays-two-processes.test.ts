/**
 * WeChat's message push over two server processes sharing Redis (PostgreSQL + Redis, MongoDB + Redis):
 * the (timestamp, nonce) pairs a push route accepted are remembered in the shared cache, so a captured
 * plain-mode URL cannot carry another body to the other process. Ten concurrent pushes under one
 * query with ten different bodies (each with a valid PayEventSig), spread over both processes: one is
 * recorded, nine are refused 40009 replayed; the accepted push sent again is answered success. A gift
 * push's OrderId granted to one player, pushed for another on the other process: ErrCode 0, nothing granted.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { platformDefinitions } from "../../src/platforms/registry";
import { payEventSig, pushSignature } from "../../src/platforms/wechat/wechat-push";
import { simulatorPaymentKeys } from "../../src/simulator/payments/payment-keys";
import { simulatorPlatformEnv, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { storeBackends } from "../support/backends";
import { simulatorPaymentEnv } from "../support/payments";
import { simulatorRewardEnv } from "../support/rewards";
import { startServerProcesses, type ServerProcess } from "../support/server-process";
import { sealedGiftPush } from "../support/wechat-gift-pushes";

const JWT = "push-replay-two-process-tests-jwt-secret-0123456789";
const backends = storeBackends.filter((b) => !b.name.startsWith("embedded"));
const WECHAT_APP = platformDefinitions.find((p) => p.name === "wechat")!.simulatorApp.appId;
let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;

for (const backend of backends) {
  describe(`WeChat push replays over two processes: ${backend.name}`, function () {
    this.timeout(180_000);
    let sim: RunningSimulator;
    let release: () => Promise<void>;
    let servers: ServerProcess[] = [];

    before(async () => {
      sim = await startSimulator({ port: 0 });
      const prepared = await backend.prepare();
      release = prepared.release;
      const env = { NODE_ENV: "test", JWT_SECRET: JWT, LOG_LEVEL: "warn", DATABASE_QUERY_TIMEOUT_MS: "10000", ...simulatorPlatformEnv(sim.url), ...simulatorPaymentEnv(sim.url), ...simulatorRewardEnv(), ...prepared.env };
      servers = await startServerProcesses(env, 2);
    });
    after(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await sim?.close();
      await release?.();
    });

    async function login(server: ServerProcess) {
      const res = await fetch(`${server.baseUrl}/api/minigame/wechat/login?jsCode=${unique("replay")}`);
      const body = (await res.json()) as { data: { token: string; openid: string } };
      assert.equal(res.status, 200, JSON.stringify(body));
      return { openid: body.data.openid, headers: { authorization: `Bearer ${body.data.token}` } };
    }
    const post = async (server: ServerProcess, route: string, query: string, body: string) => {
      const res = await fetch(`${server.baseUrl}/api/minigame/wechat/${route}?${query}`, { method: "POST", headers: { "content-type": "application/json" }, body });
      return (await res.json()) as { ErrCode: number; ErrMsg: string };
    };

    it("one query, ten bodies over both processes: one recorded, nine refused as replays; the accepted push again answers success", async () => {
      const p = await login(servers[0]);
      const keys = simulatorPaymentKeys("wechat", WECHAT_APP);
      const timestamp = String(Math.floor(Date.now() / 1000));
      const nonce = crypto.randomBytes(6).toString("hex");
      const query = new URLSearchParams({ signature: pushSignature(keys.pushToken, timestamp, nonce), timestamp, nonce }).toString();
      const bodyFor = (tradeNo: string) => {
        const payload = JSON.stringify({ OpenId: p.openid, Env: 1, OutTradeNo: tradeNo, GoodsInfo: { ProductId: "gem_pack", Quantity: 1, OrigPrice: 600, ActualPrice: 600, Attach: "" } });
        return JSON.stringify({ ToUserName: "gh_x", FromUserName: p.openid, CreateTime: 1, MsgType: "event", Event: "minigame_game_pay_goods_deliver_notify", MiniGame: { Payload: payload, PayEventSig: payEventSig(keys.sandboxAppKey, payload) } });
      };
      const tradeNos = Array.from({ length: 10 }, () => unique("trade"));
      const answers = await Promise.all(tradeNos.map((t, i) => post(servers[i % 2], "push", query, bodyFor(t))));
      const accepted = tradeNos.filter((_, i) => answers[i].ErrCode === 0);
      assert.equal(accepted.length, 1, JSON.stringify(answers));
      assert.deepEqual(answers.filter((a) => a.ErrCode !== 0), Array.from({ length: 9 }, () => ({ ErrCode: 40009, ErrMsg: "replayed" })));
      for (const server of servers) assert.deepEqual(await post(server, "push", query, bodyFor(accepted[0])), { ErrCode: 0, ErrMsg: "Success" });
      const orders = await fetch(`${servers[1].baseUrl}/api/payments/orders`, { headers: p.headers }).then(async (r) => ((await r.json()) as { data: { orders: Array<{ orderId: string }> } }).data.orders);
      assert.deepEqual(orders.map((o) => o.orderId), accepted);
    });

    it("a gift push's OrderId granted to one player, pushed for another on the other process: answered 0, nothing granted", async () => {
      const [first, second] = [await login(servers[0]), await login(servers[1])];
      const orderId = unique("gift");
      for (const [server, player] of [[servers[0], first], [servers[1], second]] as const) {
        const sealed = sealedGiftPush(WECHAT_APP, { orderId, openid: player.openid, giftId: "gift-example" });
        assert.deepEqual(await post(server, "gift-push", sealed.query, sealed.body), { ErrCode: 0, ErrMsg: "Success" });
      }
      const gems = async (server: ServerProcess, headers: Record<string, string>) =>
        ((await (await fetch(`${server.baseUrl}/api/economy/wallet`, { headers })).json()) as { data: { balances: Record<string, number> } }).data.balances.gems ?? 0;
      assert.equal(await gems(servers[1], first.headers), 20);
      assert.equal(await gems(servers[0], second.headers), 0);
    });
  });
}
