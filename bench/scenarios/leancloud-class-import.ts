/**
 * The leancloud-class-import step: `npm run import -- leancloud-class` over a generated LeanStorage
 * class export (--class-rows rows, 100,000 by default; pointers, dates, ACLs), into the embedded
 * SQLite store and into PostgreSQL, after the users import brought its 10,000 owners over. Issue 51's
 * target: 100,000 rows in under a minute, and flat memory: the peak RSS of a fifth of the rows is
 * measured beside the whole, since the export is streamed and nothing grows with it.
 */
import fs from "node:fs";
import path from "node:path";
import { log, type Context } from "../lib/context";
import { isAborting, tempDir } from "../lib/lifecycle";
import { fmt, section, simpleTable } from "../lib/report";
import { benchDatabase, runImportCli, writeExport } from "./leancloud-import";

export const CLASS_IMPORT_TARGET = { seconds: 60, rssGrowthMiB: 50 } as const;
const OWNERS = 10_000;

export async function leancloudClassImportStep(ctx: Context): Promise<string> {
  const rows = ctx.flags.classRows;
  const small = Math.max(1, Math.floor(rows / 5));
  const title = `LeanCloud class import: ${rows.toLocaleString("en")} rows (npm run import -- leancloud-class)`;
  const dir = tempDir("mgl-bench-class-");
  await writeExport(path.join(dir, "_User.jsonl"), OWNERS);
  await writeClassExport(path.join(dir, "Progress.jsonl"), rows);
  await writeClassExport(path.join(dir, "Progress-small.jsonl"), small);
  const table: string[][] = [];
  const targets: Array<{ name: string; env: () => Promise<Record<string, string>> }> = [
    { name: "embedded (SQLite, FULL)", env: async () => ({ SQLITE_PATH: path.join(dir, "store.sqlite") }) },
    { name: "PostgreSQL", env: async () => ({ DATABASE_URL: await benchDatabase(ctx, "class_import") }) },
  ];
  for (const target of targets) {
    if (isAborting()) break;
    const env = await target.env();
    const tag = target.name.split(" ")[0];
    const users = path.join(dir, `${tag}-_User.jsonl`);
    fs.copyFileSync(path.join(dir, "_User.jsonl"), users);
    log(`leancloud-class-import: ${OWNERS} owners into ${target.name}`);
    await runImportCli(env, ["leancloud", users]);
    const runs: Array<{ file: string; collection: string }> = [
      { file: "Progress-small.jsonl", collection: "progress_small" },
      { file: "Progress.jsonl", collection: "progress" },
    ];
    const results = [];
    for (const run of runs) {
      const file = path.join(dir, `${tag}-${run.file}`);
      fs.copyFileSync(path.join(dir, run.file), file);
      log(`leancloud-class-import: ${run.file} into ${target.name}`);
      results.push(await runImportCli(env, ["leancloud-class", file, "--collection", run.collection, "--owner", "player"]));
    }
    const [part, whole] = results;
    const growth = whole.peakRssMiB - part.peakRssMiB;
    table.push([
      target.name,
      fmt(whole.counts.imported),
      `${fmt(whole.seconds, 1)} (${whole.seconds < CLASS_IMPORT_TARGET.seconds ? "✓" : "✗"} < ${CLASS_IMPORT_TARGET.seconds})`,
      fmt(whole.rowsPerSecond),
      `${fmt(part.peakRssMiB)} → ${fmt(whole.peakRssMiB)} (${growth < CLASS_IMPORT_TARGET.rssGrowthMiB ? "✓" : "✗"} grows < ${CLASS_IMPORT_TARGET.rssGrowthMiB})`,
    ]);
  }
  return section(
    title,
    [
      `A generated class export (JSON Lines in LeanStorage's shape: an owner pointer to one of ${OWNERS.toLocaleString("en")} imported players, a Date, a nested object, an ACL, ten rows a player) is imported by the CLI in a child process, one store at a time. Peak RSS is the CLI's, for ${small.toLocaleString("en")} rows and then for all ${rows.toLocaleString("en")}: flat memory means the second is not larger by more than the target, whatever the export's size. The store's server (PostgreSQL) works beside it on the same 2 cores.`,
    ],
    simpleTable(["store", "rows imported", "seconds", "rows/s", "peak RSS MiB (a fifth → all)"], table),
  );
}

/** Streams `count` rows of a LeanStorage class whose `player` pointer names the generated `_User` rows. */
async function writeClassExport(file: string, count: number): Promise<void> {
  const out = fs.createWriteStream(file);
  for (let i = 0; i < count; i++) {
    const owner = i % OWNERS;
    const row = {
      objectId: `prog${i.toString(36).padStart(9, "0")}`,
      createdAt: "2024-05-06T07:08:09.010Z",
      updatedAt: "2025-05-06T07:08:09.010Z",
      ACL: i % 4 === 0 ? { "*": { read: true } } : { [`bench${owner.toString(36).padStart(8, "0")}`]: { read: true, write: true } },
      player: { __type: "Pointer", className: "_User", objectId: `bench${owner.toString(36).padStart(8, "0")}` },
      level: (i % 300) + 1,
      stars: i % 3,
      clearedAt: { __type: "Date", iso: "2025-01-02T03:04:05.000Z" },
      loadout: { hero: `h${i % 12}`, skills: ["dash", "shield", "heal"].slice(0, (i % 3) + 1) },
    };
    if (!out.write(`${JSON.stringify(row)}\n`)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
  }
  await new Promise<void>((resolve) => out.end(resolve));
}
