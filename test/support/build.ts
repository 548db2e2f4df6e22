/**
 * Compiles the production build (build/) once per test run, for the suites that run it under pm2.
 * Under mocha --parallel those suites may run in two workers at once: the first to take the run's
 * lock (a folder in the run's folder, run-context.cjs) compiles, the other waits for its answer, so
 * no process starts from files tsc is still writing.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";

export const ROOT = path.resolve(__dirname, "../..");
let built: Promise<unknown> | undefined;

const compile = () => promisify(execFile)(process.execPath, [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], { cwd: ROOT });

export function buildOnce(): Promise<unknown> {
  built ??= buildOncePerRun();
  return built;
}

async function buildOncePerRun(): Promise<void> {
  const runDir = process.env.MGL_TEST_RUN_DIR;
  if (!runDir || !fs.existsSync(runDir)) {
    await compile();
    return;
  }
  const lock = path.join(runDir, "tsc-build");
  const outcome = path.join(lock, "outcome.json");
  let mine = true;
  try {
    fs.mkdirSync(lock);
  } catch {
    mine = false;
  }
  // Written whole, then renamed: the waiting worker never reads half of it.
  const tell = (answer: object) => {
    fs.writeFileSync(`${outcome}.tmp`, JSON.stringify(answer));
    fs.renameSync(`${outcome}.tmp`, outcome);
  };
  if (mine) {
    try {
      await compile();
      tell({ ok: true });
    } catch (err) {
      tell({ ok: false, message: String(err) });
      throw err;
    }
    return;
  }
  for (;;) {
    if (fs.existsSync(outcome)) {
      const { ok, message } = JSON.parse(fs.readFileSync(outcome, "utf8")) as { ok: boolean; message?: string };
      if (!ok) throw new Error(`the production build failed in another worker: ${message}`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
