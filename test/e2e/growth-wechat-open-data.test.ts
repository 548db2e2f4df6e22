/**
 * WeChat's group and game-circle data on the real server and every store, sealed by the simulator
 * under the player's kept session key: the group ids come back; game-circle activity today grants the
 * catalog's game_club reward once per studio day (a replay, concurrent claims and a second sealing the
 * same day give nothing more); data with no activity grants nothing; forgeries (another key, another
 * app's watermark, an old watermark, garbage, the wrong shape) are refused with nothing recorded.
 */
import assert from "node:assert/strict";
import { sessionKeyKey } from "../../src/services/session-key-custody";
import { startHarness, type Harness } from "../support/app-harness";
import { storeBackends as backends } from "../support/backends";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;
const ACTIVE = { dataList: [{ dataType: 3, value: 0 }, { dataType: 4, value: 2 }, { dataType: 6, value: 1 }] };

for (const backend of backends) {
  describe(`Growth: WeChat group and game-circle data: ${backend.name}`, function () {
    this.timeout(120_000);
    let h: Harness;
    let release: () => Promise<void>;
    // The server's clock runs ahead of the simulator's by this much (an old watermark).
    const clock = { aheadMs: 0 };
    before(async () => {
      const prepared = await backend.prepare();
      release = prepared.release;
      h = await startHarness({ env: prepared.env, overrides: { now: () => Date.now() + clock.aheadMs } });
    });
    after(async () => {
      await h?.close();
      await release?.();
    });

    async function player() {
      const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("club")}`);
      assert.equal(login.status, 200, JSON.stringify(login.body));
      const userId = login.body.data.user.id as string;
      const kept = JSON.parse((await h.services.cache.get(sessionKeyKey(userId, "default")))!) as { sessionKey: string };
      return { userId, sessionKey: kept.sessionKey, headers: { authorization: `Bearer ${login.body.data.token}` } };
    }
    async function seal(sessionKey: string, data: Record<string, unknown>, watermarkAppId?: string) {
      const res = await fetch(`${h.simulator.url}/__simulator/encrypt`, { method: "POST", body: JSON.stringify({ session_key: sessionKey, data, ...(watermarkAppId ? { watermark_appid: watermarkAppId } : {}) }) });
      assert.equal(res.status, 200);
      return (await res.json()) as { encryptedData: string; iv: string };
    }
    const club = (headers: Record<string, string>, body: unknown) => h.request("POST", "/api/growth/wechat/game-club", body, headers);
    const group = (headers: Record<string, string>, body: unknown) => h.request("POST", "/api/growth/wechat/group-enter-info", body, headers);
    const clubEntries = async (userId: string) => (await h.services.economy.store.entries("default", userId)).filter((e) => e.source === "game_club");

    it("decrypts the group the player came from", async () => {
      const p = await player();
      const res = await group(p.headers, await seal(p.sessionKey, { opengid: "tG-group-1", group_openid: "g-open-1", chat_type: 3 }));
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.data, { opengid: "tG-group-1", openSingleRoomid: null, groupOpenid: "g-open-1", chatType: 3 });
      const wrongShape = await group(p.headers, await seal(p.sessionKey, { chat_type: 3 }));
      assert.deepEqual([wrongShape.status, wrongShape.body.data.code], [422, "open_data_unexpected"]);
    });

    it("game-circle activity grants once per day: 10 concurrent, a replay, a second sealing", async () => {
      const p = await player();
      const sealed = await seal(p.sessionKey, ACTIVE);
      const first = await Promise.all(Array.from({ length: 10 }, () => club(p.headers, sealed)));
      assert.ok(first.every((r) => r.status === 200), JSON.stringify(first.find((r) => r.status !== 200)?.body));
      assert.equal(first.filter((r) => r.body.data.reward?.granted).length, 1);
      assert.deepEqual(first[0].body.data.activity, { likes: 2, posts: 1 });
      assert.equal(first[0].body.data.muted, false);
      assert.equal((await club(p.headers, sealed)).body.data.reward.granted, false);
      assert.equal((await club(p.headers, await seal(p.sessionKey, ACTIVE))).body.data.reward.granted, false);
      const entries = await clubEntries(p.userId);
      assert.equal(entries.length, 1);
      assert.match(entries[0].sourceId, new RegExp(`^game_club:\\d{4}-\\d{2}-\\d{2}:${p.userId}$`));
      assert.deepEqual((await h.get("/api/economy/inventory", p.headers)).body.data.items, [{ itemId: "potion", count: 1 }]);
    });

    it("no activity grants nothing; forgeries and malformed input are refused with nothing recorded", async () => {
      const p = await player();
      const idle = await club(p.headers, await seal(p.sessionKey, { dataList: [{ dataType: 4, value: 0 }, { dataType: 1, value: 1700000000 }] }));
      assert.equal(idle.status, 200);
      assert.equal(idle.body.data.reward, null);

      const other = await player();
      const cases: Array<[unknown, number, string]> = [
        [await seal(other.sessionKey, ACTIVE), 409, "session_key_stale"],
        [await seal(p.sessionKey, ACTIVE, "wx_someone_else"), 422, "watermark_mismatch"],
        [await seal(p.sessionKey, { dataList: [{ dataType: "4", value: 1 }] }), 422, "open_data_unexpected"],
        [await seal(p.sessionKey, { dataList: "many" }), 422, "open_data_unexpected"],
        [{ encryptedData: "%%%", iv: "short" }, 400, "invalid_request"],
        [{ encryptedData: "AAAA" }, 400, "invalid_request"],
      ];
      for (const [body, status, code] of cases) {
        const res = await club(p.headers, body);
        assert.deepEqual([res.status, res.body.data?.code], [status, code], JSON.stringify(res.body));
      }
      const sealed = await seal(p.sessionKey, ACTIVE);
      clock.aheadMs = 11 * 60_000;
      try {
        const old = await club(p.headers, sealed);
        assert.deepEqual([old.status, old.body.data?.code], [422, "open_data_expired"]);
      } finally {
        clock.aheadMs = 0;
      }
      assert.equal((await club({}, ACTIVE)).status, 401);
      const douyin = await h.get(`/api/minigame/douyin/login?code=${unique("dy")}`);
      const onDouyin = await club({ authorization: `Bearer ${douyin.body.data.token}` }, await seal(p.sessionKey, ACTIVE));
      assert.equal(onDouyin.body.data.code, "session_key_missing");
      assert.deepEqual(await clubEntries(p.userId), []);
      assert.deepEqual(await clubEntries(douyin.body.data.user.id), []);
    });
  });
}
