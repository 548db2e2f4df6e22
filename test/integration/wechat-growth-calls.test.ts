/**
 * The WeChat growth calls (wechat-growth.ts) against the simulator over real HTTP: getuserriskrank's
 * chosen ranks, errors and malformed answers; updatable messages' create/update rules (an unknown id,
 * another state after "started", a state without its parameters: refused); a rejected token surfaces
 * as the platform-token error the token service heals.
 */
import assert from "node:assert/strict";
import { AppError } from "../../src/core/errors";
import { createLogger } from "../../src/logging/logger";
import { createActivityId, getUserRiskRank, setUpdatableMsg } from "../../src/platforms/wechat/wechat-growth";
import { defaultSimulatorApps, simulatorBaseUrl, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";

const WX = defaultSimulatorApps().find((a) => a.platform === "wechat")!;

describe("WeChat growth calls against the simulator", () => {
  let sim: RunningSimulator;
  let token: string;
  const deps = () => ({ settings: { appId: WX.appId, appSecret: WX.appSecret, apiBaseUrl: simulatorBaseUrl(sim.url, "wechat"), extra: {} }, timeoutMs: 2000, busyRetries: 0, logger: createLogger({ level: "silent" }) });
  const choose = (body: Record<string, unknown>) => fetch(`${sim.url}/__simulator/risk-rank`, { method: "POST", body: JSON.stringify({ platform: "wechat", ...body }) });

  before(async () => {
    sim = await startSimulator({ port: 0 });
    const res = await fetch(`${simulatorBaseUrl(sim.url, "wechat")}/cgi-bin/stable_token`, { method: "POST", body: JSON.stringify({ grant_type: "client_credential", appid: WX.appId, secret: WX.appSecret }) });
    token = ((await res.json()) as { access_token: string }).access_token;
  });
  after(() => sim?.close());

  it("getuserriskrank answers the chosen rank, 0 by default, and the chosen error", async () => {
    const call = (openid: string) => getUserRiskRank(deps(), { accessToken: token, openid, clientIp: "203.0.113.1", scene: 1 });
    assert.equal(await call("o-default"), 0);
    await choose({ openid: "o-risky", rank: 4 });
    assert.equal(await call("o-risky"), 4);
    await choose({ openid: "o-broken", errcode: 61000, errmsg: "risk check failed" });
    await assert.rejects(call("o-broken"), (err: unknown) => err instanceof AppError && err.code === "platform_unavailable" && err.data.errcode === 61000);
    await assert.rejects(getUserRiskRank(deps(), { accessToken: "not-a-token", openid: "o-risky", clientIp: "203.0.113.1", scene: 1 }), (err: unknown) => err instanceof AppError);
  });

  it("updatable messages: created, moved on, started once; unknown ids and missing parameters refused", async () => {
    const { activityId, expiresAtSec } = await createActivityId(deps(), { accessToken: token });
    assert.ok(activityId && expiresAtSec * 1000 > Date.now());
    await setUpdatableMsg(deps(), { accessToken: token, activityId, update: { state: 0, members: 1, limit: 2 } });
    await setUpdatableMsg(deps(), { accessToken: token, activityId, update: { state: 1, path: "?share=x", versionType: "release" } });
    const refused = (err: unknown) => err instanceof AppError && err.code === "invalid_request" && err.data.errcode === 47001;
    await assert.rejects(setUpdatableMsg(deps(), { accessToken: token, activityId, update: { state: 0, members: 2, limit: 2 } }), refused, "nothing after started");
    await assert.rejects(setUpdatableMsg(deps(), { accessToken: token, activityId: "sim_activity_unknown", update: { state: 0, members: 1, limit: 2 } }), refused);
    const raw = await fetch(`${simulatorBaseUrl(sim.url, "wechat")}/cgi-bin/message/wxopen/updatablemsg/send?access_token=${token}`, {
      method: "POST",
      body: JSON.stringify({ activity_id: (await createActivityId(deps(), { accessToken: token })).activityId, target_state: 0, template_info: { parameter_list: [{ name: "member_count", value: "1" }] } }),
    });
    assert.equal(((await raw.json()) as { errcode: number }).errcode, 47001);
  });
});
