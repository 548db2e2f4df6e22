/**
 * examples/douyin-live-teams through one round against the real server and the simulator: viewers
 * join teams by comment, gifts (some pushed twice) give their team points once each, the round ends
 * with the team that has more points, Douyin is told the result, and the server's gift board for the
 * round matches what the game counted.
 */
import assert from "node:assert/strict";
import { startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { groupResults, playOneRound, TeamScore } from "../../examples/douyin-live-teams/team-game";
import { startHarness, type Harness } from "../support/app-harness";

const SECRETS = { live_comment: "comment-secret-0123456789", live_gift: "gift-secret-0123456789", live_like: "like-secret-0123456789" };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the two-team Douyin live example (examples/douyin-live-teams)", function () {
  this.timeout(60_000);
  let h: Harness;
  let simulator: RunningSimulator;
  const sim = (path: string, body: unknown) => fetch(`${simulator.url}/__simulator/douyin-live/${path}`, { method: "POST", body: JSON.stringify(body) }).then((r) => r.json() as Promise<any>);

  before(async () => {
    simulator = await startSimulator({ port: 0 });
    const env = { DOUYIN_LIVE_ENABLED: "true", DOUYIN_LIVE_API_BASE_URL: simulator.url, DOUYIN_LIVE_SECRET_COMMENT: SECRETS.live_comment, DOUYIN_LIVE_SECRET_GIFT: SECRETS.live_gift, DOUYIN_LIVE_SECRET_LIKE: SECRETS.live_like };
    h = await startHarness({ env, simulator });
    await sim("register", { url: `${h.baseUrl}/api/douyin-live/push`, secrets: SECRETS });
  });
  after(async () => {
    await h?.close();
    await simulator?.close();
  });

  it("the rules: a comment joins a team once, a giver without a team joins the smaller one, likes count for members only", () => {
    const s = new TeamScore();
    s.comment("a", " 1 ");
    s.comment("a", "2");
    s.comment("b", "蓝");
    s.like("c", 5);
    s.gift({ msgId: "g1", secOpenid: "c", giftValue: 100 });
    s.like("a", 3);
    assert.deepEqual(s.members(), { red: ["a", "c"], blue: ["b"] });
    assert.deepEqual(s.points, { red: 103, blue: 0 });
    assert.equal(s.winner(), "red");
    assert.deepEqual(groupResults("blue"), [{ groupId: "blue", result: 1 }, { groupId: "red", result: 2 }]);
    assert.deepEqual(groupResults("draw").map((g) => g.result), [3, 3]);
  });

  it("plays one round: each gift counted once, a winner, Douyin told, the board from the ledger", async () => {
    const { token, roomId } = await sim("streamer", { name: "example-teams" });
    let emitted: { giftIds: string[]; duplicates: number } | undefined;
    const outcome = await playOneRound({
      server: h.baseUrl,
      token,
      during: async (live) => {
        let gifts = 0;
        live.onGift(() => gifts++);
        emitted = await sim("emit", { roomId, comments: 20, gifts: 15, likes: 20, ratePerSec: 100, duplicateRate: 0.2 });
        for (let i = 0; i < 100 && gifts < emitted!.giftIds.length; i++) await sleep(100);
        await sleep(300);
      },
    });
    assert.ok(emitted!.duplicates > 0, "some pushes came twice");
    assert.deepEqual([...outcome.gifts].sort(), [...emitted!.giftIds].sort(), "each gift once");
    const total = outcome.points.red + outcome.points.blue;
    assert.ok(total > 0);
    assert.equal(outcome.winner, outcome.points.red === outcome.points.blue ? "draw" : outcome.points.red > outcome.points.blue ? "red" : "blue");
    const boardValue = outcome.board.reduce((sum, t) => sum + t.valueFen, 0);
    const boardGifts = outcome.board.reduce((sum, t) => sum + t.giftNum, 0);
    assert.equal(boardGifts, emitted!.giftIds.length, "the server's board counts each gift once");
    assert.ok(total >= boardValue, "every gift's value went to a team (likes add the rest)");
    const synced = simulator.douyinLive.calls.filter((c) => c.path === "/api/gaming_con/round/sync_status").map((c) => c.body as { round_id: number; status: number; group_result_list: unknown[] });
    const ended = synced.find((b) => b.round_id === outcome.roundId && b.status === 2)!;
    assert.deepEqual(ended.group_result_list, groupResults(outcome.winner).map((g) => ({ group_id: g.groupId, result: g.result })));
  });
});
