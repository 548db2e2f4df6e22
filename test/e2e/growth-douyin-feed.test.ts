/**
 * Douyin's feed direct play end to end on every store: the simulator plays Douyin calling the
 * server's feed URL (signed GET, the answer's signature checked as Douyin does; its 300 ms is the
 * bench's to measure, so both deadlines are long here); the
 * ready scenes come from the player's save `douyin_feed/scenes`, written by the game through the
 * saves API. Replays answer the same; forged and stale calls, unknown apps and malformed queries are
 * refused in Douyin's shape, unsigned, with nothing recorded; a player we do not know gets no scene.
 */
import assert from "node:assert/strict";
import { signFeedPull } from "../../src/platforms/douyin/douyin-feed";
import type { AnalyticsEvent } from "../../src/core/ports/analytics-store";
import { startHarness, type Harness } from "../support/app-harness";
import { storeBackends as backends } from "../support/backends";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;
const APP_ID = "tt_simulator_app";
const SECRET = "feed-secret-of-the-e2e-tests";

for (const backend of backends) {
  describe(`Growth: Douyin feed direct play end to end: ${backend.name}`, function () {
    this.timeout(120_000);
    let h: Harness;
    let release: () => Promise<void>;
    const clock = { offset: 0 };
    before(async () => {
      const prepared = await backend.prepare();
      release = prepared.release;
      // Deadlines a loaded CI machine's FerretDB always meets: what is checked is the answer, not the speed (that is the bench's).
      h = await startHarness({ env: { ...prepared.env, DOUYIN_FEED_SECRETS: `${APP_ID}:${SECRET}`, DOUYIN_FEED_DEADLINE_MS: "5000" }, overrides: { now: () => Date.now() + clock.offset } });
      const registered = await simulator("register", { appid: APP_ID, url: `${h.baseUrl}/api/minigame/douyin/feed`, secret: SECRET, deadlineMs: 10_000 });
      assert.equal(registered.secret, SECRET);
    });
    after(async () => {
      await h?.close();
      await release?.();
    });

    async function simulator(what: "register" | "pull", body: unknown): Promise<any> {
      const res = await fetch(`${h.simulator.url}/__simulator/douyin-feed/${what}`, { method: "POST", body: JSON.stringify(body) });
      assert.equal(res.status, 200);
      return res.json();
    }
    async function player() {
      const login = await h.get(`/api/minigame/douyin/login?code=${unique("feed")}`);
      assert.equal(login.status, 200, JSON.stringify(login.body));
      return { userId: login.body.data.user.id as string, openid: login.body.data.openid as string, headers: { authorization: `Bearer ${login.body.data.token}` } };
    }
    const pulls = async (userId: string): Promise<AnalyticsEvent[]> => {
      await h.services.analytics.writer.flush();
      const all = await h.services.analytics.store.scan({ from: "2000-01-01T00:00:00.000Z", to: "2100-01-01T00:00:00.000Z", limit: 10_000 });
      return all.filter((e) => e.userId === userId && e.name === "douyin_feed_pull");
    };

    it("answers Douyin, signed, with the scenes the game saved as ready: none before, each once, later ones when their time comes", async () => {
      const p = await player();
      const none = await simulator("pull", { appid: APP_ID, openid: p.openid });
      assert.deepEqual({ status: none.status, signed: none.signed, errNo: none.errNo, scenes: none.scenes, late: none.late }, { status: 200, signed: true, errNo: 0, scenes: [], late: false });

      const now = Date.now();
      const saved = await h.request(
        "PUT",
        "/api/saves/douyin_feed/scenes",
        {
          value: {
            scenes: [
              { scene: 1, contentIds: ["CONTENT_OFFLINE"], readyAt: new Date(now - 60_000).toISOString(), extra: "gold=120" },
              { scene: 2, contentIds: ["CONTENT_STAMINA"], readyAt: new Date(now + 3_600_000).toISOString() },
            ],
          },
        },
        p.headers,
      );
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
      const replays = await Promise.all(Array.from({ length: 5 }, () => simulator("pull", { appid: APP_ID, openid: p.openid })));
      for (const answer of replays) {
        assert.equal(answer.signed, true);
        assert.deepEqual(answer.scenes, [{ scene: 1, content_ids: ["CONTENT_OFFLINE"], extra: "gold=120" }]);
      }
      clock.offset = 2 * 3_600_000;
      try {
        const later = await simulator("pull", { appid: APP_ID, openid: p.openid });
        assert.deepEqual(later.scenes.map((s: { scene: number }) => s.scene), [1, 2]);
      } finally {
        clock.offset = 0;
      }
      const recorded = await pulls(p.userId);
      assert.equal(recorded.length, 7, "every answered pull of a known player is recorded");
      assert.deepEqual(recorded.map((e) => e.props.scenes).sort(), ["", "1", "1", "1", "1", "1", "1,2"]);
    });

    it("refuses forged and stale calls, unknown apps and malformed queries in Douyin's shape, unsigned, recording nothing", async () => {
      const p = await player();
      await h.request("PUT", "/api/saves/douyin_feed/scenes", { value: { scenes: [{ scene: 3, contentIds: ["CONTENT_DROP"] }] } }, p.headers);
      const forged = await simulator("pull", { appid: APP_ID, openid: p.openid, forge: "signature" });
      const stale = await simulator("pull", { appid: APP_ID, openid: p.openid, forge: "stale" });
      for (const refused of [forged, stale]) assert.deepEqual({ status: refused.status, signed: refused.signed, errNo: refused.errNo, scenes: refused.scenes }, { status: 401, signed: false, errNo: 28006009, scenes: [] });

      const signed = signFeedPull(APP_ID, p.openid, SECRET, Math.floor(Date.now() / 1000));
      const feedUrl = `${h.baseUrl}/api/minigame/douyin/feed`;
      const stranger = signFeedPull("tt_not_ours", p.openid, SECRET, Math.floor(Date.now() / 1000));
      const answers = [
        await fetch(`${feedUrl}?${stranger.search}`, { headers: { "x-signature": stranger.signature } }),
        await fetch(`${feedUrl}?${signed.search}&openid=${p.openid}`, { headers: { "x-signature": signed.signature } }),
        await fetch(`${feedUrl}?appid=${APP_ID}&openid=${p.openid}`, { headers: { "x-signature": signed.signature } }),
        await fetch(`${feedUrl}?${signed.search.replace(/timestamp=\d+/, "timestamp=soon")}`, { headers: { "x-signature": signed.signature } }),
      ];
      assert.deepEqual(answers.map((r) => r.status), [401, 400, 400, 400]);
      for (const res of answers) {
        assert.equal(res.headers.get("x-signature"), null);
        const body = (await res.json()) as { err_no: unknown; data: unknown };
        assert.equal(typeof body.err_no, "number");
        assert.notEqual(body.err_no, 0);
        assert.deepEqual(body.data, { scenes: [] });
      }
      assert.equal((await pulls(p.userId)).length, 0);
      // The same call, signed: the scene.
      const good = await simulator("pull", { appid: APP_ID, openid: p.openid });
      assert.deepEqual(good.scenes, [{ scene: 3, content_ids: ["CONTENT_DROP"], extra: "" }]);
    });

    it("answers a player this app does not know with no scene, signed", async () => {
      const answer = await simulator("pull", { appid: APP_ID, openid: unique("nobody") });
      assert.deepEqual({ status: answer.status, signed: answer.signed, errNo: answer.errNo, scenes: answer.scenes }, { status: 200, signed: true, errNo: 0, scenes: [] });
    });
  });
}
