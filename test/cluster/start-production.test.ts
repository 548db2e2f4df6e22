/**
 * The production path as an operator runs it: `npm run config:check` on the shipped template, the
 * settings precedence, the pm2 file's process count, and `npm run start:prod` failing loudly, never
 * with a success line, when the settings are wrong or the processes cannot start. (The success
 * path starts the two-process cluster in pm2-cluster.test.ts.)
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import dotenv from "dotenv";
import { processCount, readSettings } from "../../src/config/settings-files";
import { checkSettings } from "../../src/ops/settings-check";
import { freePort, simulatorPlatformEnv } from "../support/app-harness";
import { buildOnce, ROOT } from "../support/build";

const PM2 = path.join(ROOT, "node_modules/.bin/pm2");
const TSX_CLI = path.join(ROOT, "node_modules/tsx/dist/cli.mjs");
const TEMPLATE = path.join(ROOT, "arena.env");

/** A folder holding only a copy of the shipped template, like a fresh clone. */
function freshSettingsDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-settings-"));
  fs.copyFileSync(TEMPLATE, path.join(dir, "arena.env"));
  return dir;
}

/** Only what a shell passes on, without NODE_ENV: the operator's commands default to production. */
function shellEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...extra };
}

describe("production settings: config:check and precedence", () => {
  it("npm run config:check names every placeholder of the untouched template and exits 1", function () {
    this.timeout(30_000);
    const dir = freshSettingsDir();
    try {
      const placeholders = Object.entries(dotenv.parse(fs.readFileSync(TEMPLATE)))
        .filter(([, value]) => /change-me/.test(value))
        .map(([key]) => key);
      assert.ok(placeholders.length >= 8, `the template has placeholders: ${placeholders.join(", ")}`);
      const run = spawnSync(process.execPath, [TSX_CLI, "src/ops/config-check.ts", "--settings-dir", dir], { cwd: ROOT, env: shellEnv(), encoding: "utf8" });
      assert.equal(run.status, 1, run.stdout + run.stderr);
      for (const key of placeholders) assert.match(run.stderr, new RegExp(`^  - ${key}: `, "m"), `${key} is named`);
      assert.match(run.stderr, new RegExp(`^${placeholders.length} problems in the settings:`, "m"));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("passes once arena.local.env replaces the placeholders, and says what would run", () => {
    const dir = freshSettingsDir();
    try {
      const local = {
        JWT_SECRET: "a-real-secret-of-more-than-thirty-two-bytes-0123",
        DATABASE_URL: "postgres://minigame:pw@db.internal:5432/minigame",
        REDIS_URL: "redis://redis.internal:6379",
        PUBLIC_ADDRESS: "game.studio.cn/{port}",
        METRICS_TOKEN: "metrics-token-0123456789abcdef",
        ACCESS_TOKEN_ROUTE_KEY: "internal-key-0123456789abcdef",
        WECHAT_APP_ID: "wx1234567890abcdef",
        WECHAT_APP_SECRET: "0123456789abcdef0123456789abcdef",
        DOUYIN_APP_ID: "tt1234567890abcdef",
        DOUYIN_APP_SECRET: "abcdef0123456789abcdef0123456789",
        INSTANCES: "3",
      };
      fs.writeFileSync(path.join(dir, "arena.local.env"), Object.entries(local).map(([k, v]) => `${k}=${v}`).join("\n"));
      const check = checkSettings({}, dir);
      assert.ok(check.ok, check.ok ? "" : check.problems.join("\n"));
      assert.equal(check.instances, 3, "INSTANCES from arena.local.env");
      assert.match(check.summary, /production mode, 3 processes from port 2567, users in PostgreSQL, Redis cache/);
      assert.deepEqual(check.filesRead, [path.join(dir, "arena.env"), path.join(dir, "arena.local.env")]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads environment > arena.local.env > arena.env, and neither file outside production", () => {
    const dir = freshSettingsDir();
    try {
      fs.writeFileSync(path.join(dir, "arena.env"), "PORT=1000\nLOG_LEVEL=warn\nINSTANCES=2\n");
      fs.writeFileSync(path.join(dir, "arena.local.env"), "PORT=2000\nINSTANCES=5\n");
      const production = readSettings({ NODE_ENV: "production" }, dir);
      assert.deepEqual([production.PORT, production.LOG_LEVEL, production.INSTANCES], ["2000", "warn", "5"]);
      assert.equal(readSettings({ NODE_ENV: "production", PORT: "3000" }, dir).PORT, "3000");
      assert.equal(processCount(production), 5);
      assert.equal(processCount({}), os.cpus().length, "one per core by default");
      for (const nodeEnv of ["development", "test"]) {
        const other = readSettings({ NODE_ENV: nodeEnv }, dir);
        assert.equal(other.PORT, undefined, `${nodeEnv} reads neither file`);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps arena.local.env out of git", () => {
    const ignored = spawnSync("git", ["check-ignore", "-q", "arena.local.env"], { cwd: ROOT });
    assert.equal(ignored.status, 0, "git ignores arena.local.env");
    const template = spawnSync("git", ["check-ignore", "-q", "arena.env"], { cwd: ROOT });
    assert.equal(template.status, 1, "the template stays tracked");
  });
});

describe("npm run start:prod and the pm2 file", function () {
  this.timeout(120_000);
  let pm2Home: string;
  let baseEnv: NodeJS.ProcessEnv;
  const gitStatus = () => execFileSync("git", ["status", "--porcelain"], { cwd: ROOT, encoding: "utf8" });
  let statusBefore: string;

  before(async () => {
    statusBefore = gitStatus();
    await buildOnce();
    pm2Home = fs.mkdtempSync(path.join(os.tmpdir(), "pm2-start-"));
    const port = await freePort();
    // Valid single-process production settings over the template, except what each test breaks.
    baseEnv = shellEnv({
      PM2_HOME: pm2Home,
      PORT: String(port),
      INSTANCES: "1",
      PUBLIC_ADDRESS: "127.0.0.1:{port}",
      JWT_SECRET: "start-test-jwt-secret-which-is-long-enough",
      DATABASE_URL: "postgres://nobody@127.0.0.1:5432/none",
      REDIS_URL: "", // blank means unset: the in-memory cache, fine for one process
      ...simulatorPlatformEnv("http://127.0.0.1:9"),
      ACCESS_TOKEN_ROUTE_KEY: "start-test-internal-key-0123",
      METRICS_TOKEN: "start-test-metrics-token-0123",
    });
  });
  after(() => {
    try {
      execFileSync(PM2, ["kill"], { env: baseEnv, stdio: "ignore" });
    } catch {
      // no daemon was started
    }
    fs.rmSync(pm2Home, { recursive: true, force: true });
  });

  const startProd = (env: NodeJS.ProcessEnv) =>
    spawnSync(process.execPath, ["build/src/ops/start-production.js"], { cwd: ROOT, env, encoding: "utf8", timeout: 110_000 });
  const pm2Processes = () => {
    const out = execFileSync(PM2, ["jlist"], { env: baseEnv, encoding: "utf8" }).trim().split("\n").pop() ?? "[]";
    return (JSON.parse(out) as Array<{ name: string }>).filter((p) => p.name === "minigame-server");
  };

  it("refuses a bad setting before pm2 starts anything, naming it, with no success line", () => {
    const run = startProd({ ...baseEnv, JWT_SECRET: "short" });
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(run.stderr, /^ {2}- JWT_SECRET: /m);
    assert.match(run.stderr, /not started/);
    assert.doesNotMatch(run.stdout + run.stderr, /is ready|launched/i);
    assert.deepEqual(pm2Processes(), []);
  });

  it("names the database that does not answer before pm2 starts anything; a silent platform is a warning", () => {
    const run = startProd({ ...baseEnv, DATABASE_URL: `postgres://nobody@127.0.0.1:9/none` });
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /settings OK/);
    assert.match(run.stderr, /FAIL {2}PostgreSQL \(DATABASE_URL\): ECONNREFUSED/);
    assert.match(run.stderr, /not started: PostgreSQL \(DATABASE_URL\) did not answer/);
    assert.match(run.stderr, /warning: wechat API http:\/\/127\.0\.0\.1:9/);
    assert.doesNotMatch(run.stdout + run.stderr, /is ready|START FAILED/);
    assert.deepEqual(pm2Processes(), []);
  });

  it("fails loudly with the process's first error when it cannot start, and leaves nothing crash-looping", () => {
    // Every dependency answers (SQLite's folder is writable), but the path is a folder, not a file.
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-sqlite-folder-"));
    const run = startProd({ ...baseEnv, DATABASE_URL: "", SQLITE_PATH: folder });
    fs.rmSync(folder, { recursive: true, force: true });
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /settings OK/);
    assert.match(run.stderr, /START FAILED: minigame-server process 0 exited during start-up/);
    assert.match(run.stderr, /first error:\n.*could not open the user store/);
    assert.doesNotMatch(run.stdout + run.stderr, /is ready/);
    assert.deepEqual(pm2Processes(), [], "the failed processes were removed from pm2");
  });

  it("changes no tracked file: build, check and start leave git status as it was", () => {
    assert.equal(gitStatus(), statusBefore);
  });

  it("hands pm2 the INSTANCES of the settings files, through the server's loader", () => {
    // The pm2 file and the built loader in a folder of their own, with an arena.local.env.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-eco-"));
    try {
      fs.copyFileSync(path.join(ROOT, "ecosystem.config.js"), path.join(dir, "ecosystem.config.js"));
      fs.mkdirSync(path.join(dir, "build/src/config"), { recursive: true });
      fs.copyFileSync(path.join(ROOT, "build/src/config/settings-files.js"), path.join(dir, "build/src/config/settings-files.js"));
      fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
      fs.writeFileSync(path.join(dir, "package.json"), "{}");
      fs.writeFileSync(path.join(dir, "arena.local.env"), "INSTANCES=3\n");
      const read = (env: NodeJS.ProcessEnv) =>
        JSON.parse(
          execFileSync(process.execPath, ["-e", `process.stdout.write(JSON.stringify(require(${JSON.stringify(path.join(dir, "ecosystem.config.js"))}).apps[0]))`], {
            env,
            encoding: "utf8",
          }),
        );
      const fromFile = read(shellEnv());
      assert.equal(fromFile.instances, 3);
      assert.equal(fromFile.env_production.INSTANCES, "3");
      assert.equal(read(shellEnv({ INSTANCES: "2" })).instances, 2, "the environment wins");
      // pm2 waits out the shutdown budget before it kills a process: 15 s at least, else the budget and 5 s.
      assert.equal(fromFile.kill_timeout, 15_000);
      assert.equal(read(shellEnv({ SHUTDOWN_TIMEOUT_MS: "30000" })).kill_timeout, 35_000);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
