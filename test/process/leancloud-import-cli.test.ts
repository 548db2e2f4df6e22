/**
 * `npm run import -- leancloud` as an operator runs it, on every store: a run killed with SIGKILL at
 * a random point and started again ends with the same players as an uninterrupted run, and a further
 * run imports nothing.
 */
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createUserStore } from "../../src/adapters/store/create-user-store";
import { parseConfig } from "../../src/config/config";
import { simulatorPlatformEnv } from "../../src/simulator/simulator-server";
import { storeBackends as backends } from "../support/backends";
import { ROOT } from "../support/build";
import { compiledEntry } from "../support/compiled-source";
import { leanCloudUserRow, writeExport } from "../fixtures/leancloud/user-rows";

/** The import CLI compiled beforehand (compiled-source.ts): tsx's CLI would start two processes and a loader per run. */
const IMPORT_CLI = () => ["--enable-source-maps", compiledEntry("src/admin/import-main.ts")];

function runImportCli(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...IMPORT_CLI(), ...args], { cwd: ROOT, env, maxBuffer: 1 << 24 }, (err, stdout, stderr) =>
      resolve({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Starts the CLI and kills it with SIGKILL once its checkpoint shows progress, at a random moment after. */
async function runAndKill(env: NodeJS.ProcessEnv, file: string): Promise<void> {
  const child = spawn(process.execPath, [...IMPORT_CLI(), "leancloud", file, "--window", "16"], { cwd: ROOT, env, stdio: ["ignore", "ignore", "pipe"] });
  let output = "";
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const stateFile = `${file}.import-state.json`;
  const deadline = Date.now() + 60_000;
  while (!fs.existsSync(stateFile) && Date.now() < deadline && child.exitCode === null) await sleep(20);
  if (child.exitCode !== null) throw new Error(`the import ended (exit ${child.exitCode}) before it could be killed: ${output}`);
  if (JSON.parse(fs.readFileSync(stateFile, "utf8")).done) throw new Error("the import finished before its first checkpoint: more players are needed for a kill mid-run");
  // Within 100 ms of the first checkpoint (one a second): before the end on every store here.
  await sleep(Math.floor(Math.random() * 100));
  child.kill("SIGKILL");
  await exited;
}

/** objectId → what the store holds for that LeanCloud player (one user each, or the test fails). */
async function snapshot(env: Record<string, string>, objectIds: string[]): Promise<Map<string, string>> {
  const store = await createUserStore(parseConfig(env).store);
  try {
    const seen = new Map<string, string>();
    const users = new Set<string>();
    for (const objectId of objectIds) {
      const user = await store.findByIdentity({ platform: "leancloud", platformId: objectId });
      if (!user) continue;
      const byOpenid = await store.findByIdentity({ platform: "wechat", platformId: user.openid! });
      assert.equal(byOpenid?.id, user.id, `${objectId}: its openid leads to another user`);
      assert.ok(!users.has(user.id), `${objectId}: shares a user with another LeanCloud player`);
      users.add(user.id);
      seen.set(objectId, JSON.stringify([user.openid, user.username, user.nickname, user.createdAt]));
    }
    return seen;
  } finally {
    await store.close();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const backend of backends) {
  describe(`npm run import -- leancloud, killed and resumed — ${backend.name}`, function () {
    this.timeout(300_000);
    // FerretDB writes one at a time (about 75 ms a player here): fewer players there, enough for a kill to land mid-run.
    // The first checkpoint comes 1 s into the import: enough players that it is not also the last.
    const PLAYERS = backend.name.startsWith("MongoDB") ? 150 : 4000;
    const releases: Array<() => Promise<void>> = [];
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-lc-cli-"));
    after(async () => {
      for (const release of releases) await release();
      fs.rmSync(tmp, { recursive: true, force: true });
    });

    async function freshEnv(label: string): Promise<Record<string, string>> {
      const prepared = await backend.prepare();
      releases.push(prepared.release);
      return {
        ...(process.env as Record<string, string>),
        NODE_ENV: "test",
        JWT_SECRET: "leancloud-import-tests-jwt-secret-0123456789",
        LOG_LEVEL: "warn",
        // A loaded machine (the suites run two at a time) can take longer than the 800 ms default to connect.
        DATABASE_CONNECT_TIMEOUT_MS: "10000",
        SQLITE_PATH: path.join(tmp, `${label}.sqlite`),
        // The killed run leaves claims of creations cut short; the rerun takes them over this much later.
        MONGODB_ORPHAN_CLAIM_SEC: "5",
        ...simulatorPlatformEnv("http://127.0.0.1:9"),
        ...prepared.env,
      };
    }

    it(`${PLAYERS} players: killed at a random point and run again ends with the same players as one uninterrupted run; a third run imports nothing`, async () => {
      const rows = Array.from({ length: PLAYERS }, (_, i) =>
        leanCloudUserRow({ objectId: `lcobj${i}`, authKey: "lc_weapp", openid: `oLeanCloudPlayer${i}`, nickName: i % 3 === 0 ? `玩家${i}` : undefined, username: `lcuser${i}` }),
      );
      const whole = await freshEnv("whole");
      const wholeFile = writeExport(fs.mkdtempSync(path.join(tmp, "whole-")), rows);
      const uninterrupted = await runImportCli(whole, "leancloud", wholeFile);
      assert.equal(uninterrupted.status, 0, uninterrupted.stderr);
      assert.equal(JSON.parse(uninterrupted.stdout).counts.imported, PLAYERS);

      const killed = await freshEnv("killed");
      const killedFile = writeExport(fs.mkdtempSync(path.join(tmp, "killed-")), rows);
      await runAndKill(killed, killedFile);
      const resumed = await runImportCli(killed, "leancloud", killedFile);
      assert.equal(resumed.status, 0, resumed.stderr);
      assert.match(resumed.stderr + resumed.stdout, /resuming after \d+ records/, "the kill landed before the end");
      const counts = JSON.parse(resumed.stdout).counts;
      assert.equal(counts.read, PLAYERS, "the resumed run read some players twice or missed some");
      // A player whose creation the kill cut short may be found by openid (then "merged" into what the
      // killed run wrote) or by objectId ("already"): either way one user, as the snapshot checks.
      assert.equal(counts.imported + counts.already + counts.merged, PLAYERS);

      const objectIds = rows.map((r) => r.objectId as string);
      const [expected, actual] = [await snapshot(whole, objectIds), await snapshot(killed, objectIds)];
      assert.equal(actual.size, PLAYERS);
      assert.deepEqual(actual, expected);

      const again = await runImportCli(killed, "leancloud", killedFile, "--restart");
      assert.equal(again.status, 0, again.stderr);
      const third = JSON.parse(again.stdout).counts;
      assert.deepEqual([third.imported, third.merged, third.already], [0, 0, PLAYERS]);
    });
  });
}

describe("npm run import -- leancloud, what the operator is told", function () {
  this.timeout(120_000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-lc-cli-told-"));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const env = {
    ...(process.env as Record<string, string>),
    NODE_ENV: "test",
    JWT_SECRET: "leancloud-import-tests-jwt-secret-0123456789",
    LOG_LEVEL: "warn",
    SQLITE_PATH: path.join(tmp, "told.sqlite"),
    DATABASE_URL: "",
    REDIS_URL: "",
    ...simulatorPlatformEnv("http://127.0.0.1:9"),
  };

  it("an export cut short ends with exit code 3, the file not done, and what to do; --restart keeps the report; a file with no record stops the run", async () => {
    const rows = Array.from({ length: 5 }, (_, i) => leanCloudUserRow({ objectId: `cut${i}`, authKey: "lc_tt", openid: `oCut${i}` }));
    const file = path.join(tmp, "_User.json");
    const text = JSON.stringify(rows);
    fs.writeFileSync(file, text.slice(0, text.length - 40));
    const cut = await runImportCli(env, "leancloud", file, "--platform", "lc_x=wechat", "--platform", "lc_y=qq");
    assert.equal(cut.status, 3, cut.stderr);
    const summary = JSON.parse(cut.stdout);
    assert.deepEqual([summary.counts.read, summary.counts.imported, summary.counts.skipped], [5, 4, 1]);
    assert.equal(summary.files[0].done, false);
    assert.match(summary.files[0].cutShort, /inside a record/);
    assert.match(cut.stderr, /cut short .*Download the export again/s);
    const report = `${file}.import-report.jsonl`;
    const before = fs.readFileSync(report, "utf8");
    assert.match(before, /cut short/);
    const restarted = await runImportCli(env, "leancloud", file, "--restart");
    assert.equal(restarted.status, 3, restarted.stderr);
    assert.ok(fs.readFileSync(report, "utf8").startsWith(before), "--restart truncated the report");

    const garbage = path.join(tmp, "_User.jsonl");
    fs.writeFileSync(garbage, "PK this is not an export\n");
    const stopped = await runImportCli(env, "leancloud", garbage);
    assert.equal(stopped.status, 1);
    assert.match(stopped.stderr, /none is a JSON object: is it LeanCloud's _User export/);
  });
});
