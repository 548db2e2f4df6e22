import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../..");

describe("the test run's summary", () => {
  it("lists the backends exercised and those skipped with why, and keeps 'N passed, N failed' last", function () {
    this.timeout(60_000);
    const env = { PATH: process.env.PATH, HOME: process.env.HOME }; // no TEST_DATABASE_URL / TEST_REDIS_URL
    const run = spawnSync(
      process.execPath,
      [
        "node_modules/mocha/bin/mocha.js",
        "--no-config",
        "--require",
        "tsx/cjs",
        "--extension",
        "ts",
        "--reporter",
        "test/support/summary-reporter.cjs",
        "test/support/reporter-fixture.ts",
      ],
      { cwd: ROOT, env, encoding: "utf8" },
    );
    assert.equal(run.status, 0, run.stdout + run.stderr);
    const lines = run.stdout.trimEnd().split("\n");
    assert.equal(lines.at(-1), "1 passed, 0 failed");
    const exercised = lines.slice(lines.indexOf("backends exercised:") + 1, lines.indexOf("backends skipped:"));
    const skipped = lines.slice(lines.indexOf("backends skipped:") + 1, lines.lastIndexOf(""));
    assert.deepEqual(exercised, ["  SQLite: 1 test", "  in-memory cache: 1 test"]);
    assert.ok(skipped.includes("  PostgreSQL: TEST_DATABASE_URL is not set"), skipped.join("\n"));
    assert.ok(skipped.includes("  Redis: TEST_REDIS_URL is not set"), skipped.join("\n"));
  });
});
