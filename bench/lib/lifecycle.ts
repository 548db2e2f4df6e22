/**
 * Clean-up and abort: children are stopped by pid (procs.ts); other resources (databases, key
 * prefixes, temp dirs, peers) register a function here, undone last-in first-out.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { log } from "./context";
import { stopHttpLoad } from "./http-load";
import { stopAll } from "./procs";
import { stopRoomLoad } from "./room-load";

const cleanups: (() => Promise<void>)[] = [];
let aborting = false;

export function onCleanUp(fn: () => Promise<void>): void {
  cleanups.push(fn);
}

export function isAborting(): boolean {
  return aborting;
}

export async function cleanUp(): Promise<void> {
  stopHttpLoad();
  stopRoomLoad();
  await stopAll();
  while (cleanups.length > 0) {
    const fn = cleanups.pop()!;
    await fn().catch((err: unknown) => log(`clean-up step failed: ${String(err)}`));
  }
}

export function onSignal(signal: NodeJS.Signals): void {
  if (aborting) return;
  aborting = true;
  log(`${signal}: stopping everything this bench started…`);
  void cleanUp().finally(() => process.exit(130));
}

/** A fresh temp dir, removed at clean-up. */
export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  onCleanUp(async () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}
