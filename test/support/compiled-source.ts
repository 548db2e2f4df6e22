/**
 * src/ and rooms/ (and the test helpers children run) as JavaScript, for the suites that start the server (or another entry point) as a
 * child process. `node --import tsx src/server/index.ts` spends about 5 s of CPU before it answers
 * /readyz on the CI machine, a third of it in tsx's loader; the same code compiled beforehand, 3.5 s,
 * and a run starts dozens of them. The transform is tsx's own (esbuild, with the project's tsconfig),
 * file by file into the same layout, so projectRoot() finds the checkout as it does from build/src.
 *
 * Built once per content of the sources into build/test-js/<hash>/: compiled into a folder of its own and
 * renamed into place, so processes building at the same time (mocha's parallel workers) never load
 * half a build, and an edit to src/ between two runs gets a new build.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { buildSync } from "esbuild";

const ROOT = path.resolve(__dirname, "../..");
/** The server and what the suites run beside it in child processes (test/support/*-child.ts, workers, fixtures). */
const SOURCES = ["src", "rooms", "test/support", "test/fixtures"];
const OUT = path.join(ROOT, "build", "test-js");
/** Builds of sources edited away since are removed after this long (another run may still use one). */
const STALE_MS = 60 * 60_000;

let built: string | undefined;

/** The compiled file for `entry` ("src/server/index.ts"), compiling the sources first where needed. */
export function compiledEntry(entry: string): string {
  built ??= compileSources();
  return path.join(built, entry.replace(/\.ts$/, ".js"));
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [full] : [];
  });
}

function compileSources(): string {
  const files = SOURCES.flatMap((dir) => sourceFiles(path.join(ROOT, dir))).sort();
  const hash = crypto.createHash("sha256");
  for (const file of [...files, path.join(ROOT, "tsconfig.json")]) hash.update(`${path.relative(ROOT, file)}\0`).update(fs.readFileSync(file));
  const target = path.join(OUT, hash.digest("hex").slice(0, 16));
  if (fs.existsSync(target)) return target;
  fs.mkdirSync(OUT, { recursive: true });
  const scratch = fs.mkdtempSync(path.join(OUT, ".building-"));
  try {
    buildSync({
      entryPoints: files,
      outdir: scratch,
      outbase: ROOT,
      format: "cjs",
      platform: "node",
      target: "node22",
      tsconfig: path.join(ROOT, "tsconfig.json"),
      sourcemap: true,
      logLevel: "error",
    });
    fs.renameSync(scratch, target);
  } catch (err) {
    fs.rmSync(scratch, { recursive: true, force: true });
    // Another process renamed its identical build into place first.
    if (!fs.existsSync(target)) throw err;
  }
  removeStaleBuilds(target);
  return target;
}

function removeStaleBuilds(keep: string): void {
  for (const name of fs.readdirSync(OUT)) {
    const dir = path.join(OUT, name);
    if (dir === keep) continue;
    try {
      if (Date.now() - fs.statSync(dir).mtimeMs > STALE_MS) fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // removed by another process meanwhile
    }
  }
}
