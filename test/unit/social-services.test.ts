import assert from "node:assert/strict";
import { AppError } from "../../src/core/errors";
import { createLogger } from "../../src/logging/logger";
import type { SocialClient, SubscribeCall } from "../../src/platforms/social-port";
import { WECHAT_INTERACTIVE_LIMITS, WECHAT_STORAGE_LIMITS } from "../../src/platforms/wechat/wechat-social";
import { PlayerStorageService } from "../../src/services/social/player-storage-service";
import { SubscribeMessageService, type SubscribeResult } from "../../src/services/social/subscribe-message-service";

const logger = createLogger({ level: "silent" });
const isCode = (code: string) => (err: unknown) => err instanceof AppError && err.code === code;

function fakeClient(failure?: () => Error) {
  const calls: Array<{ op: string; call: unknown }> = [];
  const record = (op: string) => async (call: unknown) => {
    calls.push({ op, call });
    if (failure) throw failure();
  };
  const client: SocialClient = {
    platform: "wechat",
    storageLimits: WECHAT_STORAGE_LIMITS,
    interactiveDataLimits: WECHAT_INTERACTIVE_LIMITS,
    setUserStorage: record("set"),
    removeUserStorage: record("remove"),
    setUserInteractiveData: record("interactive"),
    sendSubscribeMessage: record("subscribe") as (call: SubscribeCall) => Promise<void>,
  };
  return { client, calls };
}

/** Keys are kept per user and app: "alice" has one on the default app only, "dora" on a platform without storage. */
const keys = {
  async read(userId: string, app: string) {
    if (userId === "dora") return { platform: "kuaishou", openid: "o-dora", sessionKey: "key-dora" };
    return userId === "alice" && app === "default" ? { platform: "wechat", openid: "o-alice", sessionKey: "key-alice" } : undefined;
  },
};
const tokens = { withPlatformToken: <T>(platform: string, app: string, call: (accessToken: string) => Promise<T>) => call(`token-of-${platform}-${app}`) };
const clientsOf = (client: SocialClient) => ({ find: (platform: string, app: string) => (platform === "wechat" ? { client, appId: `wx-${app}` } : undefined) });

describe("player storage service", () => {
  it("signs with the kept key of that app and the app's token", async () => {
    const { client, calls } = fakeClient();
    const service = new PlayerStorageService(clientsOf(client), keys, tokens, logger);
    await service.write("alice", "default", [{ key: "score", value: "1" }]);
    assert.deepEqual(calls, [{ op: "set", call: { accessToken: "token-of-wechat-default", openid: "o-alice", sessionKey: "key-alice", kvList: [{ key: "score", value: "1" }] } }]);
    await assert.rejects(service.write("alice", "second", [{ key: "score", value: "1" }]), isCode("session_key_missing"));
  });

  it("refuses input past the platform's limits without calling it", async () => {
    const { client, calls } = fakeClient();
    const service = new PlayerStorageService(clientsOf(client), keys, tokens, logger);
    const tooMany = Array.from({ length: 129 }, (_, i) => ({ key: `k${i}`, value: "v" }));
    await assert.rejects(service.write("alice", "default", tooMany), isCode("invalid_request"));
    await assert.rejects(service.write("alice", "default", [{ key: "k", value: "v".repeat(1024) }]), isCode("invalid_request"));
    await assert.rejects(service.remove("alice", "default", []), isCode("invalid_request"));
    await assert.rejects(service.writeInteractiveData("alice", "default", [{ key: "51", value: 1 }]), isCode("invalid_request"));
    assert.equal(calls.length, 0);
  });

  it("removes each key once; a platform without storage is 404", async () => {
    const { client, calls } = fakeClient();
    const service = new PlayerStorageService(clientsOf(client), keys, tokens, logger);
    await service.remove("alice", "default", ["a", "b", "a"]);
    assert.deepEqual((calls[0].call as { keys: string[] }).keys, ["a", "b"]);
    await assert.rejects(service.write("dora", "default", [{ key: "k", value: "v" }]), isCode("route_not_found"));
  });

  it("records a match for every player it can, reporting the others without throwing", async () => {
    const { client, calls } = fakeClient();
    const service = new PlayerStorageService(clientsOf(client), keys, tokens, logger, () => 1_700_000_000_500);
    const outcomes = await service.recordMatchResults([
      { app: "default", userId: "alice", scores: { score: 3 }, kvList: [{ key: "mode", value: "duel" }], interactive: [{ key: "1", value: 1 }] },
      { app: "default", userId: "bob", scores: { score: 5 } },
    ]);
    assert.deepEqual(outcomes, [
      { userId: "alice", recorded: true },
      { userId: "bob", recorded: false, code: "session_key_missing" },
    ]);
    assert.deepEqual(
      calls.map((c) => c.op),
      ["set", "interactive"],
    );
    assert.deepEqual((calls[0].call as { kvList: unknown }).kvList, [
      { key: "score", value: '{"wxgame":{"score":3,"update_time":1700000000}}' },
      { key: "mode", value: "duel" },
    ]);
  });
});

describe("subscribe message service", () => {
  const openids = {
    openidOf: async (_platform: string, _app: string, userId: string) => ({ alice: "o-alice", pw: "" })[userId] ?? null,
    latestPlatform: async (userId: string) => (userId === "alice" ? "wechat" : undefined),
  };

  function service(failure?: () => Error) {
    const { client, calls } = fakeClient(failure);
    const counted: Array<[string, SubscribeResult]> = [];
    const metrics = { subscribeMessageSent: (platform: string, result: SubscribeResult) => void counted.push([platform, result]) };
    const subscribe = new SubscribeMessageService(clientsOf(client), openids, tokens, logger, { state: "trial", lang: "en_US", metrics });
    return { subscribe, calls, counted };
  }

  it("sends to the player's openid on that app with the configured state and language, and counts it", async () => {
    const { subscribe, calls, counted } = service();
    assert.deepEqual(await subscribe.send("wechat", "default", "alice", { templateId: "tpl", data: { thing1: "ready" } }), { sent: true });
    assert.deepEqual(calls[0].call, {
      accessToken: "token-of-wechat-default",
      appId: "wx-default",
      openid: "o-alice",
      message: { templateId: "tpl", data: { thing1: "ready" }, state: "trial", lang: "en_US" },
    });
    assert.deepEqual(counted, [["wechat", "sent"]]);
  });

  it("sends to a room's player on the platform of their latest login on the app", async () => {
    const { subscribe, calls } = service();
    assert.deepEqual(await subscribe.sendToPlayer("default", "alice", { templateId: "tpl", data: { thing1: "x" } }), { sent: true });
    assert.equal((calls[0].call as { openid: string }).openid, "o-alice");
    await assert.rejects(subscribe.sendToPlayer("default", "pw", { templateId: "tpl", data: {} }), isCode("subscribe_not_granted"));
  });

  it("maps the platform's answers to results, and a player without an openid there to not granted", async () => {
    for (const [code, result] of [
      ["subscribe_not_granted", "not_granted"],
      ["subscribe_invalid", "invalid"],
      ["platform_rate_limited", "rate_limited"],
      ["platform_unavailable", "failed"],
    ] as const) {
      const { subscribe, counted } = service(() => new AppError(code));
      await assert.rejects(subscribe.send("wechat", "default", "alice", { templateId: "t", data: {} }), isCode(code));
      assert.deepEqual(counted, [["wechat", result]]);
    }
    const { subscribe, calls, counted } = service();
    await assert.rejects(subscribe.send("wechat", "default", "pw", { templateId: "t", data: {} }), isCode("subscribe_not_granted"));
    await assert.rejects(subscribe.send("wechat", "default", "nobody", { templateId: "t", data: {} }), isCode("user_disabled"));
    assert.equal(calls.length, 0);
    assert.deepEqual(counted, [["wechat", "not_granted"]]);
  });
});
