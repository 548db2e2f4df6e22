/**
 * `npm run admin -- leaderboards …` as an operator runs it: a separate process on the server's
 * store, changing what the running server then answers, each change with an audit line.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createOperatorStore } from "../../src/adapters/store/create-operator-store";
import { runAdmin } from "../support/admin-cli";
import { ROOT } from "../support/build";
import { startHarness, TEST_JWT_SECRET, simulatorPlatformEnv, type Harness } from "../support/app-harness";
import { startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";

describe("admin leaderboards", function () {
  this.timeout(90_000);
  let simulator: RunningSimulator;
  let h: Harness;
  let env: NodeJS.ProcessEnv;
  let sqlitePath: string;

  before(async () => {
    simulator = await startSimulator({ port: 0 });
    sqlitePath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mgl-admin-lb-")), "users.sqlite");
    h = await startHarness({ env: { SQLITE_PATH: sqlitePath }, simulator });
    env = { ...process.env, NODE_ENV: "development", JWT_SECRET: TEST_JWT_SECRET, SQLITE_PATH: sqlitePath, LOG_LEVEL: "warn", ...simulatorPlatformEnv(simulator.url) };
  });
  after(async () => {
    await h?.close();
    await simulator?.close();
  });
  async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
    for (let i = 0; i < 100; i++) {
      if (await condition()) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`timed out waiting for ${what}`);
  }
  const admin = (...args: string[]) => runAdmin(env, "leaderboards", ...args);
  const audits = (stderr: string) => stderr.split("\n").filter((l) => l.includes('"admin_action"')).map((l) => JSON.parse(l));

  it("lists boards, shows a player's records, removes one, bans and resets, each audited", async () => {
    const login = await h.get(`/api/minigame/wechat/login?jsCode=lbadmin${Date.now().toString(36)}.1`);
    const { token, user } = login.body.data;
    const auth = { authorization: `Bearer ${token}` };
    assert.equal((await h.request("POST", "/api/leaderboards/highscores/scores", { score: 777 }, auth)).status, 200);

    const list = await admin("list");
    assert.equal(list.status, 0, list.stderr);
    const boards = JSON.parse(list.stdout) as Array<{ id: string; records: number; period: { seq: number } }>;
    assert.deepEqual(boards.map((b) => b.id), ["highscores", "weekly"]);
    assert.equal(boards[0].records, 1);

    const records = await admin("records", user.username);
    assert.equal(records.status, 0, records.stderr);
    assert.deepEqual(JSON.parse(records.stdout).map((r: { board: string; score: number }) => [r.board, r.score]), [["highscores", 777]]);

    const exported = await runAdmin(env, "export", user.id);
    assert.equal(exported.status, 0, exported.stderr);
    assert.deepEqual(JSON.parse(exported.stdout).leaderboards.map((r: { app: string; board: string; score: number }) => [r.app, r.board, r.score]), [["default", "highscores", 777]]);

    const removed = await admin("remove", "highscores", user.id, "--by", "ops-anna");
    assert.deepEqual([removed.status, JSON.parse(removed.stdout)], [0, { removed: true }]);
    assert.deepEqual(audits(removed.stderr).map((a) => [a.action, a.by, a.userId, a.board]), [["leaderboard_remove", "ops-anna", user.id, "highscores"]]);
    // The embedded server keeps ranks in its memory and refreshes them from the store every few seconds.
    await until(async () => (await h.get("/api/leaderboards/highscores/me", auth)).status === 404, "the removal to show");

    const banned = await admin("ban", "highscores", user.id);
    assert.equal(banned.status, 0, banned.stderr);
    const refused = await h.request("POST", "/api/leaderboards/highscores/scores", { score: 1 }, auth);
    assert.deepEqual([refused.status, refused.body.data.code], [403, "banned_from_board"]);
    assert.equal((await admin("unban", "highscores", user.id)).status, 0);
    assert.equal((await h.request("POST", "/api/leaderboards/highscores/scores", { score: 5 }, auth)).status, 200);

    const reset = await admin("reset", "highscores");
    assert.equal(reset.status, 0, reset.stderr);
    const after = JSON.parse(reset.stdout);
    assert.deepEqual([after.started, after.period.seq], [true, boards[0].period.seq + 1]);
    assert.equal(audits(reset.stderr)[0].action, "leaderboard_reset");
    await until(async () => (await h.get("/api/leaderboards/highscores/me", auth)).status === 404, "the reset to show");
    assert.equal((await h.get("/api/leaderboards/highscores/me?period=previous", auth)).body.data.score, 5);

    const unknown = await admin("reset", "nope");
    assert.equal(unknown.status, 1);
    assert.equal((await admin("frobnicate")).status, 2);

    // Every leaderboards command is in the console's audit trail, with its outcome (a reset and an unban too).
    const operators = await createOperatorStore({ kind: "sqlite", path: sqlitePath, synchronous: "FULL" });
    try {
      const seen = (await operators.searchAudit({})).map((e) => `${e.via} ${e.action} ${e.target} ${e.outcome}`);
      for (const line of [`cli cli.leaderboards.remove ${user.id} ok`, `cli cli.leaderboards.unban ${user.id} ok`, "cli cli.leaderboards.reset highscores ok", "cli cli.leaderboards.reset nope refused", "cli cli.leaderboards.list app:default ok"]) {
        assert.ok(seen.includes(line), `${line} in\n${seen.join("\n")}`);
      }
    } finally {
      await operators.close();
    }
  });

  it("reads the development settings when NODE_ENV is unset, as every other command does", async function () {
    if (fs.existsSync(path.join(ROOT, "arena.local.env"))) return this.skip(); // a production host's checkout
    const { NODE_ENV: _, ...unset } = env;
    const list = await runAdmin(unset, "leaderboards", "list");
    assert.equal(list.status, 0, list.stderr);
    assert.deepEqual(JSON.parse(list.stdout).map((b: { id: string }) => b.id), ["highscores", "weekly"]);
  });
});
