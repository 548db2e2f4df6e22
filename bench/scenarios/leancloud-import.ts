/**
 * The leancloud-import step: `npm run import -- leancloud` over a generated `_User` export of
 * --import-users players (1,000,000 by default), as an operator runs it (the CLI, a child process),
 * into the embedded SQLite store and into PostgreSQL: players per second, the CLI's CPU seconds and
 * its peak RSS (the target: under 300 MiB whatever the export's size, since the export is streamed).
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Client } from "pg";
import { log, ROOT, type Context } from "../lib/context";
import { isAborting, onCleanUp, tempDir } from "../lib/lifecycle";
import { fmt, section, simpleTable } from "../lib/report";

export const IMPORT_TARGET = { rssMiB: 300 } as const;

const TSX_CLI = path.join(ROOT, "node_modules/tsx/dist/cli.mjs");

export async function leancloudImportStep(ctx: Context): Promise<string> {
  const users = ctx.flags.importUsers;
  const title = `LeanCloud import: ${users.toLocaleString("en")} players (npm run import -- leancloud)`;
  const dir = tempDir("mgl-bench-import-");
  log(`leancloud-import: writing an export of ${users} players`);
  const exportBytes = await writeExport(path.join(dir, "_User.jsonl"), users);
  const rows: string[][] = [];
  const targets: Array<{ name: string; env: Record<string, string> }> = [
    { name: "embedded (SQLite, FULL)", env: { SQLITE_PATH: path.join(dir, "users.sqlite") } },
    { name: "PostgreSQL", env: { DATABASE_URL: await benchDatabase(ctx) } },
  ];
  for (const target of targets) {
    if (isAborting()) break;
    const file = path.join(dir, `${target.name.split(" ")[0]}-_User.jsonl`);
    fs.copyFileSync(path.join(dir, "_User.jsonl"), file);
    log(`leancloud-import: importing into ${target.name}`);
    const run = await runCli(target.env, file);
    fs.rmSync(file);
    const cpuSec = run.cpuSec;
    rows.push([
      target.name,
      fmt(run.summary.counts.imported),
      fmt(run.summary.seconds, 1),
      fmt(run.summary.playersPerSecond),
      fmt(cpuSec, 1),
      fmt((cpuSec * 1e6) / Math.max(1, run.summary.counts.read)),
      `${fmt(run.summary.peakRssMiB)} (${run.summary.peakRssMiB < IMPORT_TARGET.rssMiB ? "✓" : "✗"} < ${IMPORT_TARGET.rssMiB})`,
    ]);
  }
  const table = simpleTable(["store", "players imported", "seconds", "players/s", "CLI CPU s", "CLI CPU µs/player", "peak RSS MiB"], rows);
  return section(
    title,
    [
      `A generated export (${(exportBytes / 2 ** 20).toFixed(0)} MiB of JSON Lines in LeanCloud's \`_User\` shape, every player with \`authData.lc_weapp\`, a third with a nickname) is imported by the CLI in a child process, one store at a time, from an empty store. The CPU column is the CLI's own (user + system); the store's server (PostgreSQL) works beside it on the same 2 cores.`,
    ],
    table,
  );
}

async function runCli(env: Record<string, string>, file: string): Promise<{ summary: any; cpuSec: number }> {
  const summary = await runImportCli(env, ["leancloud", file]);
  return { summary, cpuSec: summary.cpuSeconds };
}

/** Runs `npm run import -- <args>` as an operator does (a child process); resolves with its JSON summary. */
export async function runImportCli(env: Record<string, string>, args: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [TSX_CLI, "src/admin/import-main.ts", ...args],
      { cwd: ROOT, env: { ...process.env, NODE_ENV: "development", LOG_LEVEL: "warn", ...env }, maxBuffer: 1 << 24 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`import failed: ${stderr.slice(-2000)}`));
        resolve(JSON.parse(stdout));
      },
    );
    onCleanUp(async () => void child.kill("SIGKILL"));
  });
}

export async function benchDatabase(ctx: Context, purpose = "import"): Promise<string> {
  const base = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const name = `mgl_bench_${purpose}_${ctx.tag.replace(/[^a-z0-9]/gi, "").toLowerCase()}`;
  const admin = new Client({ connectionString: base });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  onCleanUp(async () => {
    const c = new Client({ connectionString: base });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await c.end();
  });
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Streams `count` LeanCloud `_User` rows to `file`; returns its size. */
export async function writeExport(file: string, count: number): Promise<number> {
  const out = fs.createWriteStream(file);
  for (let i = 0; i < count; i++) {
    const row = {
      objectId: `bench${i.toString(36).padStart(8, "0")}`,
      username: `lcbench${i}`,
      createdAt: "2020-01-02T03:04:05.678Z",
      updatedAt: "2021-01-02T03:04:05.678Z",
      ACL: { "*": { read: true } },
      salt: "h60d8x797d3oa0naxybxxv9bn7xpt2yiowz68mpiwou7gwr2",
      password: "tA7BLW+NK0UeARng0693gCaVnljkglCB9snqlpCSUKjx2RgYp8VZZOQt0S5iUtlDrkJXfT3gknS4rRqjYsd/Ug==",
      ...(i % 3 === 0 ? { nickName: `玩家${i}` } : {}),
      authData: { lc_weapp: { openid: `oBenchLeanCloud${i}`, session_key: "bGVhbmNsb3Vk" } },
    };
    if (!out.write(`${JSON.stringify(row)}\n`)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
  }
  await new Promise<void>((resolve) => out.end(resolve));
  return fs.statSync(file).size;
}
