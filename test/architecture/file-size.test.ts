/**
 * Source files a person can read in one sitting: about 300 lines at most outside the tests. The
 * bound is a little above 300 so that a file near the line does not fail for a comment; a file
 * that grows past it wants splitting along its seams, not trimming.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
const MAX_LINES = 320;
const SOURCE = /\.(ts|mts|cts|js|mjs|cjs|go|sh)$/;

/** The tracked and untracked (not ignored) source files outside test/ and generated folders. */
function sourceFiles(): string[] {
  const listed = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" });
  return listed
    .split("\n")
    .filter((f) => SOURCE.test(f) && !f.startsWith("test/") && !f.includes("/dist/") && fs.existsSync(path.join(ROOT, f)));
}

describe("file sizes", () => {
  it(`keeps every source file outside the tests under ${MAX_LINES} lines`, () => {
    const files = sourceFiles();
    assert.ok(files.some((f) => f.startsWith("src/")), "reads the real sources");
    const long = files
      .map((f) => ({ f, lines: fs.readFileSync(path.join(ROOT, f), "utf8").split("\n").length }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ f, lines }) => `${f}: ${lines} lines`);
    assert.deepEqual(long, []);
  });
});
