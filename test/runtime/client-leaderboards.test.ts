/**
 * The built drop-in client's leaderboards inside a modelled WeChat runtime, against the real server:
 * submit where allowed, top with a cursor, around-me, me, a friends list, and the server's codes.
 */
import assert from "node:assert/strict";
import { simulatorPlatformEnv, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { startHarness, type Harness } from "../support/app-harness";
import { ensureClientBuilt } from "../support/client-build";
import { FakeDevice } from "./fake-platform";
import { createMiniGameContext } from "./runtime-context";

const unique = (label: string) => `${label}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value));

describe("client leaderboards in a WeChat runtime", function () {
  this.timeout(60_000);
  let h: Harness;
  let simulator: RunningSimulator;
  let dropIn: string;

  before(async () => {
    dropIn = ensureClientBuilt();
    simulator = await startSimulator({ port: 0 });
    h = await startHarness({ simulator, env: simulatorPlatformEnv(simulator.url) });
  });
  after(async () => {
    await h?.close();
    await simulator?.close();
  });

  it("submits, pages the top, reads around the player and its own rank; refusals carry the server's codes", async () => {
    const players = [];
    for (const score of [300, 100, 200]) {
      const game = createMiniGameContext("wechat", new FakeDevice(unique("ranker")), dropIn);
      const client = game.library.createGameClient({ server: h.baseUrl });
      const user = await client.login();
      const board = client.leaderboard("highscores");
      await assert.rejects(board.me(), (err: { code?: string; status?: number }) => err.code === "no_record" && err.status === 404);
      const record = await board.submit(score, { metadata: { level: 2 } });
      assert.equal(record.score, score);
      players.push({ client, user, board });
    }
    const [best, , middle] = players;
    const first = await best.board.top({ limit: 2 });
    assert.deepEqual(plain(first.records.map((r) => r.score)), [300, 200]);
    const second = await best.board.top({ limit: 2, cursor: first.next! });
    assert.deepEqual(plain(second.records.map((r) => [r.rank, r.score])), [[3, 100]]);
    assert.deepEqual(plain((await middle.board.aroundMe({ limit: 3 })).map((r) => r.score)), [300, 200, 100]);
    const me = await middle.board.me();
    assert.deepEqual([me.rank, me.score, me.name], [2, 200, middle.user.username]);
    const friends = await best.board.records([middle.user.id, players[1].user.id]);
    assert.deepEqual(plain(friends.map((r) => r.score)), [200, 100]);
    await assert.rejects(best.board.submit(5_000_000), (err: { code?: string }) => err.code === "score_out_of_bounds");
    await assert.rejects(best.client.leaderboard("weekly").submit(1), (err: { code?: string }) => err.code === "client_submit_disabled");
    const joined = await best.client.leaderboard("weekly").join();
    assert.equal(joined.joined, true);
  });
});
