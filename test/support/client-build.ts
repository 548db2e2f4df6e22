/**
 * The game client's drop-in file, built when missing or older than its sources, so a lone
 * `npx mocha test/runtime/…` works as well as `npm test` (which builds first).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
const CLIENT = path.join(ROOT, "client");
export const DROP_IN_FILE = path.join(CLIENT, "dist", "minigame-client.js");

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

export function ensureClientBuilt(): string {
  const sources = Math.max(newestMtime(path.join(CLIENT, "src")), fs.statSync(path.join(CLIENT, "build.mjs")).mtimeMs);
  if (!fs.existsSync(DROP_IN_FILE) || fs.statSync(DROP_IN_FILE).mtimeMs < sources) {
    execFileSync(process.execPath, [path.join(CLIENT, "build.mjs")], { cwd: ROOT, stdio: "inherit" });
  }
  return DROP_IN_FILE;
}
