/**
 * WeChat's risk rank before gift-pack grants, on the real server and every store, with the simulator
 * playing getuserriskrank at ranks the test chooses (RISK_RANK_CHECKS=gift_pack, threshold 3, refuse):
 * a rank-4 player's pushed gift pack is refused with nothing in the ledger, a rank-0 player's granted
 * once; the rank is asked once and then read from the cache; a player whose IP the server never saw
 * (no risk-check call) is refused too; WeChat's error for a player lets the grant through (logged).
 * Flag mode and the cache's expiry: test/unit/growth-risk-rank.test.ts.
 */
import assert from "node:assert/strict";
import { platformDefinitions } from "../../src/platforms/registry";
import { storeBackends as backends } from "../support/backends";
import { paymentServerPerSuite } from "../support/payments";
import { simulatorRewardEnv } from "../support/rewards";
import { sealedGiftPush } from "../support/wechat-gift-pushes";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;
const WECHAT_APP = platformDefinitions.find((p) => p.name === "wechat")!.simulatorApp.appId;

for (const backend of backends) {
  describe(`Growth: WeChat risk rank before grants: ${backend.name}`, function () {
    this.timeout(60_000);
    const server = paymentServerPerSuite(backend, { ...simulatorRewardEnv(), RISK_RANK_CHECKS: "gift_pack", RISK_RANK_THRESHOLD: "3", RISK_RANK_ACTION: "refuse" });

    async function player(rank?: number | { errcode: number }) {
      const login = await server.h.get(`/api/minigame/wechat/login?jsCode=${unique("risk")}`);
      assert.equal(login.status, 200, JSON.stringify(login.body));
      const openid = login.body.data.openid as string;
      if (rank !== undefined) {
        const body = typeof rank === "number" ? { platform: "wechat", openid, rank } : { platform: "wechat", openid, ...rank };
        assert.equal((await fetch(`${server.h.simulator.url}/__simulator/risk-rank`, { method: "POST", body: JSON.stringify(body) })).status, 200);
      }
      return { openid, userId: login.body.data.user.id as string, headers: { authorization: `Bearer ${login.body.data.token}` } };
    }
    const riskCheck = (headers: Record<string, string>) => server.h.request("POST", "/api/growth/risk-check", undefined, headers);
    const calls = async (openid: string) => ((await (await fetch(`${server.h.simulator.url}/__simulator/risk-rank?platform=wechat&openid=${openid}`)).json()) as { calls: number }).calls;
    const giftEntries = async (userId: string) => (await server.h.services.economy.store.entries("default", userId)).filter((e) => e.source === "gift_pack");
    const push = async (openid: string, orderId = unique("order")) => {
      const sealed = sealedGiftPush(WECHAT_APP, { orderId, openid, giftId: "gift-example" });
      const res = await fetch(`${server.h.baseUrl}/api/minigame/wechat/gift-push?${sealed.query}`, { method: "POST", headers: { "content-type": "application/json" }, body: sealed.body });
      return (await res.json()) as { ErrCode: number };
    };

    it("refuses a risky player's gift pack, grants a normal player's once, asking WeChat once per player", async () => {
      const risky = await player(4);
      const normal = await player(0);
      for (const p of [risky, normal]) {
        const checked = await riskCheck(p.headers);
        assert.equal(checked.status, 200);
        assert.deepEqual(checked.body.data, { checked: true });
      }
      assert.notEqual((await push(risky.openid)).ErrCode, 0, "refused: not acknowledged");
      assert.notEqual((await push(risky.openid)).ErrCode, 0);
      assert.deepEqual(await giftEntries(risky.userId), []);
      assert.ok(server.h.logs.some((l) => l.includes("risk_rank_refused")));

      const orderId = unique("order");
      assert.equal((await push(normal.openid, orderId)).ErrCode, 0);
      assert.equal((await push(normal.openid, orderId)).ErrCode, 0);
      assert.deepEqual((await giftEntries(normal.userId)).map((e) => e.sourceId), [orderId]);
      assert.equal(await calls(risky.openid), 1, "the rank is cached per player");
      assert.equal(await calls(normal.openid), 1);
    });

    it("refuses a player whose rank is unknown and IP never seen; WeChat's error lets a checked player's grant through", async () => {
      const unseen = await player(0);
      assert.notEqual((await push(unseen.openid)).ErrCode, 0);
      assert.deepEqual(await giftEntries(unseen.userId), []);
      assert.equal(await calls(unseen.openid), 0);

      const failing = await player({ errcode: -1 });
      assert.deepEqual((await riskCheck(failing.headers)).body.data, { checked: false });
      assert.equal((await push(failing.openid)).ErrCode, 0);
      assert.equal((await giftEntries(failing.userId)).length, 1);
      assert.ok(server.h.logs.some((l) => l.includes("risk_rank_unchecked")));
    });

    it("the simulator refuses malformed risk-rank controls", async () => {
      for (const body of [{ platform: "wechat" }, { platform: "wechat", openid: "x", rank: 5 }, { platform: "wechat", openid: "x", rank: "1" }]) {
        assert.equal((await fetch(`${server.h.simulator.url}/__simulator/risk-rank`, { method: "POST", body: JSON.stringify(body) })).status, 400);
      }
    });
  });
}
