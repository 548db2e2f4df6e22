/**
 * Douyin's gift-code redemption: the request as Douyin's SDK sends it, its answers turned into typed
 * errors (against a local server answering canned replies), the uuid one redemption keeps across
 * retries; and the service: a code confirmed once is granted once, a concurrent try Douyin calls
 * "already redeemed" answers from the ledger, and nothing is granted on any refusal.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { AppError } from "../../src/core/errors";
import { createLogger } from "../../src/logging/logger";
import { PlatformTokenRejectedError, type PlatformClientDeps } from "../../src/platforms/platform";
import { DOUYIN_GIFT_CODE_PATH, giftCodeUuid, redeemDouyinGiftCode, type RedeemedGiftCode } from "../../src/platforms/douyin/douyin-gift-code";
import { GiftCodes, type GiftCodeDeps } from "../../src/services/rewards/gift-codes";
import { GiftRewards } from "../../src/services/rewards/gift-rewards";
import { MemoryRewardGranter } from "../support/memory-reward-granter";

const logger = createLogger({ level: "silent" });
const codeOf = (err: unknown) => (err as AppError).code;

describe("Douyin receive_reward client", () => {
  let server: http.Server;
  let deps: PlatformClientDeps;
  const seen: Array<{ path: string; token: string; body: Record<string, unknown> }> = [];
  let answers: unknown[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      let raw = "";
      req.on("data", (chunk) => (raw += chunk));
      req.on("end", () => {
        seen.push({ path: req.url ?? "", token: String(req.headers["access-token"] ?? ""), body: JSON.parse(raw) });
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answers.shift()));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const apiBaseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    deps = { settings: { appId: "", appSecret: "", apiBaseUrl, extra: {} }, timeoutMs: 2000, busyRetries: 2, retryDelayMs: () => 1, logger };
  });
  after(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => (seen.length = 0));

  const call = { accessToken: "tok-1", code: "mg1722924937_11229022", openid: "_000abc", uuid: "u-1" };
  const success = { err_no: 0, err_msg: "success", gift_info: { gift_id: "7461891275051078697", name: "白金强化碎片包", play_type: 1, prop_list: [{ prop_id: "coin003", name: "金币", icon: "", count: 5 }] } };

  it("posts {gift_code, open_id, uuid} with the access-token header and reads gift_info", async () => {
    answers = [success];
    const redeemed = await redeemDouyinGiftCode(deps, { ...call, envType: "development" });
    assert.deepEqual(redeemed, { giftId: "7461891275051078697", name: "白金强化碎片包", props: [{ propId: "coin003", count: 5 }] });
    assert.deepEqual(seen, [{ path: DOUYIN_GIFT_CODE_PATH, token: "tok-1", body: { gift_code: call.code, open_id: call.openid, uuid: "u-1", env_type: "development" } }]);
  });

  it("retries Douyin's system and network errors with the same uuid, then gives up as platform_unavailable", async () => {
    answers = [{ err_no: 28001005, err_msg: "系统内部错误" }, { err_no: 28001006, err_msg: "网络调用错误" }, success];
    assert.equal((await redeemDouyinGiftCode(deps, call)).giftId, "7461891275051078697");
    assert.deepEqual(new Set(seen.map((s) => s.body.uuid)), new Set(["u-1"]));
    answers = [{ err_no: 28001005 }, { err_no: 28001005 }, { err_no: 28001005 }];
    await assert.rejects(redeemDouyinGiftCode(deps, call), (err) => codeOf(err) === "platform_unavailable");
  });

  it("turns refusals into typed errors: already redeemed, not this player's, bad parameters, the token, a malformed answer", async () => {
    const cases: Array<[unknown, (err: unknown) => boolean]> = [
      [{ err_no: 28006040, err_msg: "礼包码重复核销" }, (e) => codeOf(e) === "gift_code_used"],
      [{ err_no: 28006041, err_msg: "礼包码与 open_id 绑定关系有误" }, (e) => codeOf(e) === "gift_code_invalid" && (e as AppError).data.err_no === 28006041],
      [{ err_no: 28001007, err_msg: "参数错误" }, (e) => codeOf(e) === "gift_code_invalid"],
      [{ err_no: 28001003, err_msg: "access_token 无效" }, (e) => e instanceof PlatformTokenRejectedError],
      [{ err_no: 28001008, err_msg: "access_token 过期" }, (e) => e instanceof PlatformTokenRejectedError],
      [{ err_no: 0, err_msg: "success", gift_info: { name: "no id" } }, (e) => codeOf(e) === "platform_unavailable"],
      [{ err_no: 123456, err_msg: "?" }, (e) => codeOf(e) === "platform_unavailable"],
    ];
    for (const [answer, check] of cases) {
      answers = [answer];
      await assert.rejects(redeemDouyinGiftCode(deps, call), check, JSON.stringify(answer));
    }
  });

  it("keeps one uuid per (app, player, code), shaped like Douyin's example", () => {
    const uuid = giftCodeUuid("default", "_000abc", "cdkey88888");
    assert.match(uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(giftCodeUuid("default", "_000abc", "cdkey88888"), uuid);
    const others = [giftCodeUuid("other", "_000abc", "cdkey88888"), giftCodeUuid("default", "_000xyz", "cdkey88888"), giftCodeUuid("default", "_000abc", "cdkey88889")];
    assert.equal(new Set([uuid, ...others]).size, 4);
  });
});

describe("GiftCodes service", () => {
  const catalog = { adUnit: async () => undefined, giftPack: async (_app: string, giftId: string) => (giftId === "pack-1" ? { giftId, grants: { currencies: { gems: 5 } } } : undefined) };

  function service(redeem: (call: { code: string; uuid: string }) => Promise<RedeemedGiftCode>, openid = "_000me") {
    const granter = new MemoryRewardGranter();
    const gifts = new GiftRewards({ rewards: granter, catalog, userIdFor: async () => undefined, logger });
    const recorded: GiftCodeDeps["recorded"] = async (app, code) => {
      const grant = granter.applied.find((g) => g.appId === app && g.source === "gift_code" && g.sourceId === code);
      return grant && { userId: grant.userId, giftId: "pack-1", result: { balances: granter.balanceOf(app, grant.userId), items: [] } };
    };
    const codes = new GiftCodes({ gifts, redeemer: { serves: (app) => app === "default", redeem: (_app, call) => redeem(call) }, openidOf: async () => openid, recorded, logger });
    return { codes, granter };
  }
  const confirmed: RedeemedGiftCode = { giftId: "pack-1", name: "Pack", props: [] };

  it("grants a confirmed code once, with the same uuid on every try; late tries do not ask the platform", async () => {
    const uuids: string[] = [];
    const { codes, granter } = service(async ({ uuid }) => (uuids.push(uuid), confirmed));
    const results = await Promise.all(Array.from({ length: 20 }, () => codes.redeem("default", "u1", "cdk-1")));
    assert.equal(results.filter((r) => r.granted).length, 1);
    assert.equal(granter.grantsOf("gift_code").length, 1);
    assert.equal(new Set(uuids).size, 1);
    const asked = uuids.length;
    assert.deepEqual(await codes.redeem("default", "u1", "cdk-1"), { code: "cdk-1", giftId: "pack-1", granted: false, balances: { gems: 5 }, items: [] });
    assert.equal(uuids.length, asked);
    await assert.rejects(codes.redeem("default", "u2", "cdk-1"), (err) => codeOf(err) === "gift_code_used");
  });

  it("answers a concurrent try Douyin calls 'already redeemed' from the ledger once the other has granted", async () => {
    let calls = 0;
    const { codes } = service(async () => {
      if (++calls === 1) return confirmed;
      await new Promise((resolve) => setTimeout(resolve, 20));
      throw new AppError("gift_code_used", { data: { err_no: 28006040 } });
    });
    const results = await Promise.all([codes.redeem("default", "u1", "cdk-2"), codes.redeem("default", "u1", "cdk-2")]);
    assert.deepEqual(results.map((r) => r.granted).sort(), [false, true]);
  });

  it("grants nothing when the platform refuses, the pack is unknown, or the player has no Douyin login", async () => {
    const refusing = service(async () => {
      throw new AppError("gift_code_invalid", { data: { err_no: 28006041 } });
    });
    await assert.rejects(refusing.codes.redeem("default", "u1", "cdk-3"), (err) => codeOf(err) === "gift_code_invalid");
    const used = service(async () => {
      throw new AppError("gift_code_used", { data: { err_no: 28006040 } });
    });
    await assert.rejects(used.codes.redeem("default", "u1", "cdk-3"), (err) => codeOf(err) === "gift_code_used");
    const unknownPack = service(async () => ({ ...confirmed, giftId: "pack-9" }));
    await assert.rejects(unknownPack.codes.redeem("default", "u1", "cdk-3"), (err) => codeOf(err) === "gift_pack_unknown");
    const noLogin = service(async () => confirmed, "");
    await assert.rejects(noLogin.codes.redeem("default", "u1", "cdk-3"), (err) => codeOf(err) === "gift_codes_unsupported");
    await assert.rejects(noLogin.codes.redeem("elsewhere", "u1", "cdk-3"), (err) => codeOf(err) === "gift_codes_unsupported");
    for (const s of [refusing, used, unknownPack, noLogin]) assert.equal(s.granter.calls, 0);
  });
});
