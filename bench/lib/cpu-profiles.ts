/** Where `--profile` runs keep their `node --cpu-prof` files, and how a process's own file is found again. */
import fs from "node:fs";
import path from "node:path";
import { RESULTS_DIR, type Context } from "./context";

/** A new folder for `label`'s profiles and the node flags that write into it (none without --profile). */
export function cpuProfiling(ctx: Context, label: string): { dir: string; nodeArgs: string[] } {
  const dir = path.join(RESULTS_DIR, "profiles", `${label}-${new Date().toISOString().replace(/[:.]/g, "-")}`);
  if (!ctx.flags.profile) return { dir, nodeArgs: [] };
  fs.mkdirSync(dir, { recursive: true });
  return { dir, nodeArgs: ["--cpu-prof", "--cpu-prof-dir", dir] };
}

/**
 * Node names the files CPU.<date>.<pid>.<thread>.<seq>.cpuprofile, one per thread (tsx adds a
 * loader thread); the main thread's is the one that matters.
 */
export function mainThreadProfile(dir: string, pid: number): string | undefined {
  const file = fs.readdirSync(dir).find((f) => f.includes(`.${pid}.0.`) && f.endsWith(".cpuprofile"));
  return file && path.join(dir, file);
}
