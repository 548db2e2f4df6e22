/**
 * Douyin gift codes end to end on every store backend, through the real server, the economy's ledger
 * and the simulator playing Douyin's receive_reward: a code the simulator issued is redeemed and its
 * pack granted once under 20 concurrent and 20 late tries (the late ones answered from the ledger,
 * without asking Douyin), and a push of the same code adds nothing; another player's, an unknown,
 * another app's and an elsewhere-redeemed code, a pack the catalog lacks, a malformed body, a player
 * without a Douyin login: refused, nothing granted or recorded.
 */
import assert from "node:assert/strict";
import { platformDefinitions } from "../../src/platforms/registry";
import type { Harness } from "../support/app-harness";
import { storeBackends as backends } from "../support/backends";
import { paymentServerPerSuite } from "../support/payments";
import { simulatorRewardEnv } from "../support/rewards";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const DOUYIN_APP = platformDefinitions.find((p) => p.name === "douyin")!.simulatorApp.appId;

for (const backend of backends) {
  describe(`Douyin gift codes end to end: ${backend.name}`, function () {
    this.timeout(120_000);
    const server = paymentServerPerSuite(backend, simulatorRewardEnv());
    let h: Harness;
    before(() => (h = server.h));

    async function player(platform: "wechat" | "douyin" = "douyin") {
      const login = platform === "wechat" ? await h.get(`/api/minigame/wechat/login?jsCode=${unique("p")}`) : await h.get(`/api/minigame/douyin/login?code=${unique("p")}`);
      assert.equal(login.status, 200, JSON.stringify(login.body));
      return { openid: login.body.data.openid as string, userId: login.body.data.user.id as string, headers: { authorization: `Bearer ${login.body.data.token}` } };
    }
    const wallet = async (headers: Record<string, string>) => (await h.get("/api/economy/wallet", headers)).body.data.balances;
    const issue = async (body: Record<string, unknown>) => {
      const res = await fetch(`${h.simulator.url}/__simulator/gift`, { method: "POST", body: JSON.stringify({ platform: "douyin", giftId: "gift-example", delivery: "code", ...body }) });
      assert.equal(res.status, 200);
      return ((await res.json()) as { giftCode: string }).giftCode;
    };
    const redeem = (headers: Record<string, string>, body: unknown) => h.request("POST", "/api/rewards/gift-codes", body, headers);
    const codes = () => h.simulator.payments.rewards.giftCodes;
    const recorded = (code: string) => h.services.economy.store.findBySource("default", "gift_code", code);

    it("a code is redeemed and granted once: 20 concurrent tries, 20 late ones from the ledger, and a push of the same code", async () => {
      const p = await player();
      const code = await issue({ openid: p.openid });
      const first = await Promise.all(Array.from({ length: 20 }, () => redeem(p.headers, { code })));
      assert.ok(first.every((r) => r.status === 200), JSON.stringify(first.find((r) => r.status !== 200)?.body));
      assert.equal(first.filter((r) => r.body.data.granted).length, 1);
      assert.ok(first.every((r) => r.body.data.code === code && r.body.data.balances.gems === 20));
      assert.equal(first.find((r) => r.body.data.granted)!.body.data.giftId, "gift-example");
      const asked = codes().calls(DOUYIN_APP, code);
      assert.ok(asked >= 1 && asked <= 20, String(asked));

      for (let i = 0; i < 20; i++) {
        const late = await redeem(p.headers, { code });
        assert.equal(late.status, 200);
        assert.deepEqual({ granted: late.body.data.granted, giftId: late.body.data.giftId }, { granted: false, giftId: "gift-example" });
      }
      assert.equal(codes().calls(DOUYIN_APP, code), asked, "late tries are answered from the ledger");
      assert.deepEqual(await wallet(p.headers), { gems: 20 });
      assert.deepEqual((await h.get("/api/economy/inventory", p.headers)).body.data.items, [{ itemId: "potion", count: 2 }]);

      // The same code pushed by Douyin's gift push is the same grant.
      const push = await fetch(`${h.simulator.url}/__simulator/gift`, {
        method: "POST",
        body: JSON.stringify({ platform: "douyin", openid: p.openid, giftId: "gift-example", orderId: code, notifyUrl: `${h.baseUrl}/api/minigame/douyin/gift-push` }),
      });
      assert.equal(push.status, 200);
      for (let i = 0; i < 100 && !h.simulator.payments.rewards.delivery("gift", code, "douyin")?.acknowledged; i++) await sleep(50);
      assert.equal(h.simulator.payments.rewards.delivery("gift", code, "douyin")?.acknowledged, true);
      assert.deepEqual(await wallet(p.headers), { gems: 20 });

      // The code pushed for another player: handled (Douyin stops pushing it), nothing granted to them.
      const other = await player();
      await fetch(`${h.simulator.url}/__simulator/gift`, {
        method: "POST",
        body: JSON.stringify({ platform: "douyin", openid: other.openid, giftId: "gift-example", orderId: code, notifyUrl: `${h.baseUrl}/api/minigame/douyin/gift-push` }),
      });
      for (let i = 0; i < 100 && (h.simulator.payments.rewards.delivery("gift", code, "douyin")?.attempts ?? 0) < 1; i++) await sleep(50);
      for (let i = 0; i < 100 && !h.simulator.payments.rewards.delivery("gift", code, "douyin")?.acknowledged; i++) await sleep(50);
      assert.equal(h.simulator.payments.rewards.delivery("gift", code, "douyin")?.acknowledged, true);
      assert.ok(h.logs.some((line) => line.includes("granted_to_another_player")));
      assert.deepEqual(await wallet(other.headers), {});
    });

    it("refuses another player's, unknown, another app's and elsewhere-redeemed codes, and an unknown pack, granting nothing", async () => {
      const owner = await player();
      const stranger = await player();
      const refused = async (body: unknown, status: number, errorCode: string, headers = stranger.headers) => {
        const res = await redeem(headers, body);
        assert.equal(res.status, status, JSON.stringify(res.body));
        assert.equal(res.body.data.code, errorCode);
      };
      const owned = await issue({ openid: owner.openid });
      await refused({ code: owned }, 404, "gift_code_invalid");
      await refused({ code: unique("forged") }, 404, "gift_code_invalid");
      await refused({ code: await issue({ openid: stranger.openid, app: "tt-another-app" }) }, 404, "gift_code_invalid");
      // Redeemed by another server (another uuid) before this player came.
      const elsewhere = await issue({ openid: stranger.openid });
      const { appId, appSecret } = platformDefinitions.find((d) => d.name === "douyin")!.simulatorApp;
      const tokenReply = await fetch(`${h.simulator.url}/mgplatform/api/apps/stable_token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ appid: appId, secret: appSecret, grant_type: "client_credential" }) });
      const token = ((await tokenReply.json()) as { data: { access_token: string } }).data.access_token;
      const direct = await fetch(`${h.simulator.url}/mgplatform/api/gift/receive_reward`, {
        method: "POST",
        headers: { "content-type": "application/json", "access-token": token },
        body: JSON.stringify({ gift_code: elsewhere, open_id: stranger.openid, uuid: "another-server" }),
      });
      assert.equal(((await direct.json()) as { err_no: number }).err_no, 0);
      await refused({ code: elsewhere }, 409, "gift_code_used");
      const unknownPack = await issue({ openid: stranger.openid, giftId: "no-such-pack" });
      await refused({ code: unknownPack }, 409, "gift_pack_unknown");
      for (const body of [{ code: "not a code!" }, {}, { code: owned, extra: 1 }, { code: owned, envType: "dev-1" }]) await refused(body, 400, "invalid_request");
      const wechat = await player("wechat");
      await refused({ code: owned }, 404, "gift_codes_unsupported", wechat.headers);
      assert.equal((await redeem({}, { code: owned })).status, 401);

      assert.deepEqual(await wallet(stranger.headers), {});
      for (const code of [owned, elsewhere, unknownPack]) assert.equal(await recorded(code), null, code);
      // The stranger's failed try did not shadow the owner's code.
      const mine = await redeem(owner.headers, { code: owned });
      assert.equal(mine.status, 200);
      assert.equal(mine.body.data.granted, true);
      // Once granted, another player's try is refused from the ledger.
      await refused({ code: owned }, 409, "gift_code_used");
    });
  });
}
