/**
 * `npm run import -- leancloud <export file or folder> [--app <key>] [--dry-run] …`: brings a studio's
 * LeanCloud players into this server's store, so their next mini-game login finds their account.
 * Progress goes to stderr, the summary to stdout (JSON), a line per skipped or merged player to the
 * report file. See docs/migrate-from-leancloud.md.
 */
import "../config/node-floor"; // first: on Node < 22 it says so and exits, before a dependency fails to load
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { createUserStore } from "../adapters/store/create-user-store";
import { ConfigError, parseConfig, type AppConfig } from "../config/config";
import { operatorEnvironment, readSettings } from "../config/settings-files";
import { DEFAULT_APP } from "../core/apps";
import { loadImportState, runImport, type ImportState } from "../services/migration/import-run";
import { parsePlatformMap } from "../services/migration/leancloud-users";
import { PlayerImporter } from "../services/migration/player-importer";
import { importAppOf } from "./import-app";
import { importStatisticsFile, parseBoardMap } from "./import-statistics";
import pino from "pino";
import { createLogger } from "../logging/logger";
import { ImportProgress } from "./import-progress";

const USAGE = `usage: npm run import -- leancloud <export> [options]
  <export> is LeanCloud's data export of the _User class (_User.jsonl, or a .json array / {"results": [...]}),
  or a folder holding _User*.jsonl / _User*.json files
options:
  --app <key>            the app (APPS_FILE key) the players belong to; default: default
  --dry-run              read and match everything, change nothing, write no checkpoint
  --platform <k>=<p>,…   more authData keys: e.g. lc_bytedance=douyin (lc_weapp, lc_qqapp, lc_toutiao are known)
  --restart              ignore the checkpoint of an earlier run and read the export from its start
  --report <file>        where the per-player lines go (default: <export>.import-report.jsonl)
  --window <n>           players imported at once (default 64)
  --statistics <file>    LeanCloud leaderboard statistics ({statisticName, statisticValue, user: {objectId}} rows,
                         as its REST API answers them), imported after the players as records of the boards of
                         the same id; repeatable. Each is the player's best: running it again changes nothing
  --board <name>=<id>,…  statistic names whose board here has another id (e.g. world=highscores)
settings: as the server's (NODE_ENV defaults to production: arena.env < arena.local.env < environment)`;

const PASSWORD_NOTE =
  "LeanCloud password hashes are not carried over: players keep their platform login; a player who also had a password sets a new one after logging in.";

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        app: { type: "string" },
        "dry-run": { type: "boolean" },
        platform: { type: "string" },
        restart: { type: "boolean" },
        report: { type: "string" },
        window: { type: "string" },
        statistics: { type: "string", multiple: true },
        board: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    return usageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const [source, exportPath, ...extra] = positionals;
  if (source !== "leancloud") return usageError(source ? `unknown source "${source}" (only leancloud)` : "a source is required: leancloud");
  if (!exportPath || extra.length > 0) return usageError("exactly one export file or folder is required");
  const window = values.window === undefined ? 64 : Number(values.window);
  if (!Number.isInteger(window) || window < 1 || window > 1024) return usageError("--window must be a whole number from 1 to 1024");
  let files: string[];
  try {
    files = exportFiles(exportPath);
  } catch (err) {
    return usageError((err as Error).message);
  }

  let config: AppConfig;
  try {
    config = parseConfig(readSettings(operatorEnvironment()));
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    throw err;
  }
  const appKey = values.app ?? DEFAULT_APP;
  const app = config.apps.find((a) => a.key === appKey);
  if (!app) return usageError(`--app: no app "${appKey}" (apps: ${config.apps.map((a) => a.key).join(", ")})`);
  const platforms = parsePlatformMap(values.platform, Object.keys(config.platforms));
  if (typeof platforms === "string") return usageError(platforms);

  const boardMap = parseBoardMap(values.board);
  if (typeof boardMap === "string") return usageError(boardMap);
  const statisticsFiles = values.statistics ?? [];
  const missing = statisticsFiles.find((f) => !fs.existsSync(f));
  if (missing) return usageError(`--statistics: ${missing} does not exist`);
  const dryRun = values["dry-run"] === true;
  if (dryRun && statisticsFiles.length > 0) return usageError("--statistics writes records: leave out --dry-run");
  const store = await createUserStore(config.store);
  try {
    await store.migrate();
    const importer = new PlayerImporter(store, importAppOf(config, appKey), dryRun);
    const totals: ImportState[] = [];
    const started = Date.now();
    for (const file of files) totals.push(await importFile(file, importer, platforms, { dryRun, restart: values.restart === true, window, report: values.report }));
    const logger = createLogger({ level: "warn", destination: pino.destination({ fd: 2, sync: true }), name: "import" });
    const statistics = [];
    for (const file of statisticsFiles) statistics.push(await importStatisticsFile(file, { config, appKey, store, importer, boards: boardMap, logger }));
    const seconds = (Date.now() - started) / 1000;
    const counts = sumCounts(totals);
    const summary = {
      source: "leancloud",
      app: appKey,
      dryRun,
      files: totals.map((t) => ({ file: t.file, done: t.done })),
      counts,
      ...(statistics.length > 0 ? { statistics } : {}),
      seconds: Number(seconds.toFixed(1)),
      playersPerSecond: seconds > 0 ? Math.round(counts.read / seconds) : counts.read,
      cpuSeconds: Number(((process.cpuUsage().user + process.cpuUsage().system) / 1e6).toFixed(1)),
      peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
      note: PASSWORD_NOTE,
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

async function importFile(
  file: string,
  importer: PlayerImporter,
  platforms: Record<string, string>,
  options: { dryRun: boolean; restart: boolean; window: number; report?: string },
): Promise<ImportState> {
  const stateFile = options.dryRun ? undefined : `${file}.import-state.json`;
  const previous = stateFile && !options.restart ? loadImportState(stateFile) : undefined;
  if (previous?.done) {
    process.stderr.write(`${file}: imported completely on ${previous.updatedAt}; --restart reads it again (nothing is imported twice)\n`);
    return previous;
  }
  if (previous) process.stderr.write(`${file}: resuming after ${previous.counts.read} players (byte ${previous.offset} of ${previous.size})\n`);
  const reportFile = options.report ?? `${file}.${options.dryRun ? "dry-run" : "import"}-report.jsonl`;
  const report = fs.createWriteStream(reportFile, { flags: previous ? "a" : "w" });
  const progress = new ImportProgress(file, process.stderr, previous?.counts.read ?? 0);
  try {
    return await runImport({
      file,
      importer,
      platforms,
      stateFile,
      resumeFrom: previous,
      window: options.window,
      report: (line) => report.write(`${JSON.stringify(line)}\n`),
      progress: (state) => progress.show(state),
    });
  } finally {
    progress.finish();
    await new Promise<void>((resolve) => report.end(resolve));
  }
}

/** The export file, or a folder's `_User` files in name order. */
function exportFiles(exportPath: string): string[] {
  const stat = fs.statSync(exportPath, { throwIfNoEntry: false });
  if (!stat) throw new Error(`${exportPath} does not exist`);
  if (stat.isFile()) return [path.resolve(exportPath)];
  const files = fs
    .readdirSync(exportPath)
    .filter((name) => /^_User.*\.jsonl?$/.test(name))
    .sort()
    .map((name) => path.resolve(exportPath, name));
  if (files.length === 0) throw new Error(`${exportPath} holds no _User*.jsonl or _User*.json file`);
  return files;
}

function sumCounts(states: ImportState[]): ImportState["counts"] {
  const sum = { ...states[0].counts };
  for (const state of states.slice(1)) for (const key of Object.keys(sum) as Array<keyof typeof sum>) sum[key] += state.counts[key];
  return sum;
}

function usageError(problem: string): number {
  process.stderr.write(`${problem}\n${USAGE}\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    const cause = err instanceof Error && err.cause instanceof Error ? ` (${err.cause.message})` : "";
    process.stderr.write(`import stopped: ${err instanceof Error ? err.message : String(err)}${cause}\nRun the same command again to continue from the checkpoint.\n`);
    process.exit(1);
  },
);
