/**
 * The real server killed (SIGKILL, through the test-only REWARD_CRASH_POINT) at each step of a
 * reward source, with the economy's own ledger: after an ad view is recorded, before a gift pack's
 * grant, after a mail's grant. After a restart (two processes on PostgreSQL + Redis and MongoDB +
 * Redis, one on SQLite) the platform's retry or the player's repeat lands exactly one grant, which
 * the wallet shows once.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { adSignature, encryptAdReward } from "../../src/platforms/wechat/wechat-ad-reward";
import { platformDefinitions } from "../../src/platforms/registry";
import { simulatorRewardKeys } from "../../src/simulator/rewards/reward-keys";
import { simulatorPlatformEnv, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { runAdmin } from "../support/admin-cli";
import { storeBackends as backends } from "../support/backends";
import { simulatorPaymentEnv } from "../support/payments";
import { simulatorRewardEnv } from "../support/rewards";
import { startServerProcess, startServerProcesses, type ServerProcess } from "../support/server-process";
import { sealedGiftPush } from "../support/wechat-gift-pushes";

const JWT = "reward-fault-tests-jwt-secret-0123456789abcdef";
let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;
const WECHAT_APP = platformDefinitions.find((p) => p.name === "wechat")!.simulatorApp.appId;

for (const backend of backends) {
  describe(`reward sources in the server survive SIGKILL at each step: ${backend.name}`, function () {
    this.timeout(120_000);
    let sim: RunningSimulator;
    let env: Record<string, string>;
    let release: () => Promise<void>;
    let tmp: string;
    const servers: ServerProcess[] = [];
    const twoProcesses = !backend.name.startsWith("embedded");

    before(async () => {
      sim = await startSimulator({ port: 0 });
      const prepared = await backend.prepare();
      release = prepared.release;
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-rewardfault-"));
      env = { NODE_ENV: "test", JWT_SECRET: JWT, LOG_LEVEL: "info", SQLITE_PATH: path.join(tmp, "users.sqlite"), ...simulatorPlatformEnv(sim.url), ...simulatorPaymentEnv(sim.url), ...simulatorRewardEnv(), ...prepared.env };
    });
    afterEach(async () => {
      await Promise.all(servers.splice(0).map((s) => s.stop()));
    });
    after(async () => {
      await sim?.close();
      await release?.();
      if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    });

    async function login(server: ServerProcess, player: string, n: number) {
      const res = await fetch(`${server.baseUrl}/api/minigame/wechat/login?jsCode=${player}.${n}`);
      const body = (await res.json()) as { data: { token: string; openid: string; user: { id: string } } };
      assert.equal(res.status, 200, JSON.stringify(body));
      return body.data;
    }
    const post = (url: string, body: string) =>
      fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body }).then(
        async (r) => ({ status: r.status, body: (await r.json().catch(() => undefined)) as Record<string, unknown> | undefined }),
        () => "no answer" as const,
      );

    /** Crashes a server at `point` on the first send, restarts (two processes where the store allows), sends again on each. */
    async function crashAndRetry(point: string, send: (server: ServerProcess) => Promise<unknown>, before?: (server: ServerProcess) => Promise<void>) {
      const crashing = await startServerProcess({ ...env, REWARD_CRASH_POINT: point });
      servers.push(crashing);
      await before?.(crashing);
      assert.equal(await send(crashing), "no answer");
      await crashing.exited;
      assert.equal(crashing.exit()?.signal, "SIGKILL");
      const restarted = await startServerProcesses(env, twoProcesses ? 2 : 1);
      servers.push(...restarted);
      const answers = [];
      for (const server of restarted) answers.push(await send(server));
      return { restarted, answers };
    }
    const gems = async (server: ServerProcess, token: string) =>
      ((await (await fetch(`${server.baseUrl}/api/economy/wallet`, { headers: { authorization: `Bearer ${token}` } })).json()) as { data: { balances: Record<string, number> } }).data.balances.gems;

    it("after_view_recorded: WeChat's retry of the ad callback grants once", async () => {
      const player = unique("viewer");
      let openid = "";
      const k = simulatorRewardKeys("wechat", WECHAT_APP);
      const tx = unique("tx");
      const callback = () => {
        const encrypt = encryptAdReward(k.adAesKey, { transaction_id: tx, user_id: openid, reward_item: "x", reward_amount: 1, custom_data: JSON.stringify({ adUnitId: "adunit-example" }) });
        const ts = String(Date.now());
        return JSON.stringify({ signature: adSignature(k.adToken, ts, "9", encrypt), timestamp: ts, nonce: "9", encrypt });
      };
      const { restarted, answers } = await crashAndRetry(
        "after_view_recorded",
        (s) => post(`${s.baseUrl}/api/minigame/wechat/ad-reward`, callback()),
        async (s) => void (openid = (await login(s, player, 1)).openid),
      );
      assert.deepEqual(answers.map((a) => (a as { body: { is_valid: boolean } }).body.is_valid), restarted.map(() => true));
      const again = await login(restarted[0], player, 2);
      assert.equal(await gems(restarted[0], again.token), 5);
    });

    it("before_gift_granted: WeChat's next push of the gift pack grants once", async () => {
      const player = unique("gifted");
      let openid = "";
      const orderId = unique("gift");
      const push = (s: ServerProcess) => {
        const sealed = sealedGiftPush(WECHAT_APP, { orderId, openid, giftId: "gift-example" });
        return post(`${s.baseUrl}/api/minigame/wechat/gift-push?${sealed.query}`, sealed.body);
      };
      const { restarted, answers } = await crashAndRetry("before_gift_granted", push, async (s) => void (openid = (await login(s, player, 1)).openid));
      assert.ok(answers.every((a) => (a as { body: { ErrCode: number } }).body.ErrCode === 0));
      const again = await login(restarted[0], player, 2);
      assert.equal(await gems(restarted[0], again.token), 20);
    });

    it("after_mail_granted: the player's repeated claim finishes it, one grant", async () => {
      const player = unique("mailed");
      let token = "";
      let logins = 1;
      const mailId = unique("mail");
      // A fresh login on each server: with the in-memory cache the sessions died with the killed process.
      const claim = async (s: ServerProcess) => {
        token = (await login(s, player, ++logins)).token;
        return fetch(`${s.baseUrl}/api/mail/${mailId}/claim`, { method: "POST", headers: { authorization: `Bearer ${token}` } }).then(
          async (r) => ((await r.json()) as { data: { granted: boolean } }).data.granted,
          () => "no answer" as const,
        );
      };
      const { restarted, answers } = await crashAndRetry("after_mail_granted", claim, async (s) => {
        const me = await login(s, player, 1);
        const sent = await runAdmin({ ...process.env, ...env, NODE_ENV: "development" }, "mail", "send", "--to", me.user.id, "--title", "Sorry", "--currency", "gems=30", "--mail-id", mailId);
        assert.equal(sent.status, 0, sent.stderr);
      });
      assert.deepEqual(answers, restarted.map(() => false));
      assert.equal(await gems(restarted[0], token), 30);
    });
  });
}
