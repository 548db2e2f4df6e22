/** Compiles the production build (build/) once per test run, for the suites that run it under pm2. */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

export const ROOT = path.resolve(__dirname, "../..");
let built: Promise<unknown> | undefined;

export function buildOnce(): Promise<unknown> {
  built ??= promisify(execFile)(process.execPath, [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], { cwd: ROOT });
  return built;
}
