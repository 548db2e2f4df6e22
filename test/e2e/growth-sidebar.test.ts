/**
 * The Douyin sidebar revisit reward end to end on every store backend, through the real server and
 * the economy's ledger, with the server's clock under the test's control: granted once per studio
 * day (Asia/Shanghai by default) under concurrent replays, again after the day boundary; another
 * scene, a malformed body, a player without a Douyin login: refused, nothing granted or recorded.
 * (Two time zones across the boundary: test/unit/growth-daily-rewards.test.ts.)
 */
import assert from "node:assert/strict";
import { startHarness, type Harness } from "../support/app-harness";
import { storeBackends as backends } from "../support/backends";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;
const FROM_SIDEBAR = { launchFrom: "homepage", location: "sidebar_card" };

for (const backend of backends) {
  describe(`Growth: the sidebar reward end to end: ${backend.name}`, function () {
    this.timeout(120_000);
    // Shanghai's 2026-03-01, one minute before its midnight; moved by the tests.
    const clock = { offset: 0 };
    const setClock = (iso: string) => (clock.offset = Date.parse(iso) - Date.now());
    let h: Harness;
    let release: () => Promise<void>;
    before(async () => {
      const prepared = await backend.prepare();
      release = prepared.release;
      h = await startHarness({ env: prepared.env, overrides: { now: () => Date.now() + clock.offset } });
    });
    after(async () => {
      await h?.close();
      await release?.();
    });

    async function player(platform: "wechat" | "douyin" = "douyin") {
      const login = platform === "wechat" ? await h.get(`/api/minigame/wechat/login?jsCode=${unique("p")}`) : await h.get(`/api/minigame/douyin/login?code=${unique("p")}`);
      assert.equal(login.status, 200, JSON.stringify(login.body));
      return { userId: login.body.data.user.id as string, headers: { authorization: `Bearer ${login.body.data.token}` } };
    }
    const claim = (headers: Record<string, string>, body: unknown) => h.request("POST", "/api/growth/sidebar", body, headers);
    const wallet = async (headers: Record<string, string>) => (await h.get("/api/economy/wallet", headers)).body.data.balances;
    const recorded = (userId: string, day: string) => h.services.economy.store.findBySource("default", "sidebar", `sidebar:${day}:${userId}`);

    it("granted once per Shanghai day: 10 concurrent claims before midnight, a replay after a minute, a new grant after midnight", async () => {
      setClock("2026-03-01T15:59:00Z");
      const p = await player();
      const first = await Promise.all(Array.from({ length: 10 }, () => claim(p.headers, FROM_SIDEBAR)));
      assert.ok(first.every((r) => r.status === 200), JSON.stringify(first.find((r) => r.status !== 200)?.body));
      assert.equal(first.filter((r) => r.body.data.granted).length, 1);
      assert.ok(first.every((r) => r.body.data.day === "2026-03-01" && r.body.data.rewardId === "sidebar" && r.body.data.balances.gems === 3));
      setClock("2026-03-01T15:59:59Z");
      assert.equal((await claim(p.headers, FROM_SIDEBAR)).body.data.granted, false);
      assert.deepEqual(await wallet(p.headers), { gems: 3 });

      setClock("2026-03-01T16:00:01Z");
      const next = await claim(p.headers, FROM_SIDEBAR);
      assert.equal(next.status, 200);
      assert.deepEqual({ granted: next.body.data.granted, day: next.body.data.day }, { granted: true, day: "2026-03-02" });
      assert.deepEqual(await wallet(p.headers), { gems: 6 });
      assert.ok(await recorded(p.userId, "2026-03-01"));
      assert.ok(await recorded(p.userId, "2026-03-02"));
    });

    it("another scene, malformed bodies, a player without a Douyin login: refused, nothing granted or recorded", async () => {
      setClock("2026-03-05T04:00:00Z");
      const p = await player();
      const notSidebar = await claim(p.headers, { launchFrom: "homepage", location: "search_result" });
      assert.equal(notSidebar.status, 422);
      assert.equal(notSidebar.body.data.code, "not_from_sidebar");
      for (const body of [{}, { launchFrom: "homepage" }, { ...FROM_SIDEBAR, userId: "someone" }, { launchFrom: 1, location: "sidebar_card" }, { launchFrom: "homepage", location: "x".repeat(65) }, "homepage"]) {
        const res = await claim(p.headers, body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.data.code, "invalid_request");
      }
      const anonymous = await claim({}, FROM_SIDEBAR);
      assert.equal(anonymous.status, 401);
      const w = await player("wechat");
      const onWechat = await claim(w.headers, FROM_SIDEBAR);
      assert.equal(onWechat.status, 404);
      assert.deepEqual({ code: onWechat.body.data.code, reason: onWechat.body.data.reason }, { code: "growth_unsupported", reason: "no_douyin_login" });

      assert.deepEqual(await wallet(p.headers), {});
      assert.deepEqual(await wallet(w.headers), {});
      assert.equal(await recorded(p.userId, "2026-03-05"), null);
      assert.equal(await recorded(w.userId, "2026-03-05"), null);
    });
  });
}
