/**
 * `npm run import -- leancloud <export file or folder> [--app <key>] [--dry-run] …`: brings a studio's
 * LeanCloud players into this server's store, so their next mini-game login finds their account.
 * Progress goes to stderr, the summary to stdout (JSON), a line per skipped or merged player to the
 * report file. See docs/migrate-from-leancloud.md.
 */
import "../config/node-floor"; // first: on Node < 22 it says so and exits, before a dependency fails to load
import fs from "node:fs";
import { parseArgs } from "node:util";
import { createUserStore } from "../adapters/store/create-user-store";
import { ConfigError, parseConfig, type AppConfig } from "../config/config";
import { operatorEnvironment, readSettings } from "../config/settings-files";
import { DEFAULT_APP } from "../core/apps";
import { NoRecordsError, type ImportState } from "../services/migration/import-run";
import { parsePlatformMap } from "../services/migration/leancloud-users";
import { PlayerImporter } from "../services/migration/player-importer";
import { importAppOf } from "./import-app";
import { importStatisticsFile, parseBoardMap } from "./import-statistics";
import pino from "pino";
import { createLogger } from "../logging/logger";
import { exportFiles, importFile } from "./import-files";
import { ImportProgress } from "./import-progress";
import { CLASS_USAGE, importClass } from "./import-class";

const USAGE = `usage: npm run import -- leancloud <export> [options]
  <export> is LeanCloud's data export of the _User class: the .tar.gz it delivers (its _User files are
  unpacked next to it, into <export>.unpacked/), _User.jsonl, a .json array or {"results": [...]} file,
  or a folder holding _User*.jsonl / _User*.json files
options:
  --app <key>            the app (APPS_FILE key) the players belong to; default: default
  --dry-run              read and match everything, change nothing, write no checkpoint
  --platform <k>=<p>,…   more authData keys: e.g. wx_mygame=wechat (lc_weapp, lc_qqapp, lc_tt, lc_toutiao are known);
                         repeatable
  --restart              ignore the checkpoint of an earlier run and read the export from its start
  --report <file>        where the per-player lines go (default: <export>.import-report.jsonl)
  --window <n>           players imported at once (default 64)
  --statistics <file>    LeanCloud leaderboard statistics ({statisticName, statisticValue, user: {objectId}} rows,
                         as its REST API answers them), imported after the players as records of the boards of
                         the same id; repeatable. Each is the player's best: running it again changes nothing
  --board <name>=<id>,…  statistic names whose board here has another id (e.g. world=highscores); repeatable
settings: as the server's (NODE_ENV defaults to production: arena.env < arena.local.env < environment)`;

const USERNAME_NOTE =
  "LeanCloud usernames that do not fit this server's rules (its mini-game logins give random ones) are replaced by the placeholder a login gives; the players keep their platform login. Not listed in the report.";

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
        platform: { type: "string", multiple: true },
        restart: { type: "boolean" },
        report: { type: "string" },
        window: { type: "string" },
        statistics: { type: "string", multiple: true },
        board: { type: "string", multiple: true },
        collection: { type: "string" },
        owner: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    return usageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n${CLASS_USAGE}\n`);
    return 0;
  }
  const [source, exportPath, ...extra] = positionals;
  if (source === "leancloud-class") return classMain(exportPath, extra, values);
  if (source !== "leancloud") return usageError(source ? `unknown source "${source}" (leancloud or leancloud-class)` : "a source is required: leancloud or leancloud-class");
  if (!exportPath || extra.length > 0) return usageError("exactly one export file or folder is required");
  const window = values.window === undefined ? 64 : Number(values.window);
  if (!Number.isInteger(window) || window < 1 || window > 1024) return usageError("--window must be a whole number from 1 to 1024");

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
  let files: string[];
  try {
    files = await exportFiles(exportPath);
  } catch (err) {
    return usageError((err as Error).message);
  }
  const store = await createUserStore(config.store);
  try {
    await store.migrate();
    const importer = new PlayerImporter(store, importAppOf(config, appKey), dryRun);
    const totals: ImportState[] = [];
    const started = Date.now();
    for (const [i, file] of files.entries()) {
      const truncateReport = dryRun && (i === 0 || values.report === undefined);
      try {
        totals.push(await importFile(file, importer, platforms, { dryRun, restart: values.restart === true, window, report: values.report, truncateReport, out: process.stderr }));
      } catch (err) {
        if (!(err instanceof NoRecordsError)) throw err;
        process.stderr.write(`import stopped: ${err.message}\n`);
        return 1;
      }
    }
    const logger = createLogger({ level: "warn", destination: pino.destination({ fd: 2, sync: true }), name: "import" });
    const statistics = [];
    for (const file of statisticsFiles) statistics.push(await importStatisticsFile(file, { config, appKey, store, importer, boards: boardMap, logger }));
    const seconds = (Date.now() - started) / 1000;
    const counts = sumCounts(totals);
    const usernamesNotKept = totals.reduce((sum, t) => sum + (t.usernamesNotKept ?? 0), 0);
    const summary = {
      source: "leancloud",
      app: appKey,
      dryRun,
      files: totals.map((t) => ({ file: t.file, done: t.done && !t.cutShort, ...(t.cutShort ? { cutShort: t.cutShort } : {}) })),
      counts,
      ...(usernamesNotKept > 0 ? { usernamesNotKept, usernameNote: USERNAME_NOTE } : {}),
      ...(statistics.length > 0 ? { statistics } : {}),
      seconds: Number(seconds.toFixed(1)),
      playersPerSecond: seconds > 0 ? Math.round(counts.read / seconds) : counts.read,
      cpuSeconds: Number(((process.cpuUsage().user + process.cpuUsage().system) / 1e6).toFixed(1)),
      peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
      note: PASSWORD_NOTE,
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    const cut = totals.filter((t) => t.cutShort);
    for (const t of cut) process.stderr.write(`${t.file} is cut short (${t.cutShort}): its last record is in the report as malformed. Download the export again and import the whole file with --restart (nothing is imported twice).\n`);
    return cut.length > 0 ? 3 : 0;
  } finally {
    await store.close();
  }
}

function sumCounts(states: ImportState[]): ImportState["counts"] {
  const sum = { ...states[0].counts };
  for (const state of states.slice(1)) for (const key of Object.keys(sum) as Array<keyof typeof sum>) sum[key] += state.counts[key];
  return sum;
}

/** `leancloud-class`: a LeanStorage class's rows into a saves collection (import-class.ts). */
async function classMain(exportPath: string | undefined, extra: string[], values: Record<string, unknown>): Promise<number> {
  const classUsage = (problem: string) => (process.stderr.write(`${problem}\n${CLASS_USAGE}\n`), 2);
  if (!exportPath || extra.length > 0) return classUsage("exactly one export file is required");
  const window = values.window === undefined ? 64 : Number(values.window);
  if (!Number.isInteger(window) || window < 1 || window > 1024) return classUsage("--window must be a whole number from 1 to 1024");
  let config: AppConfig;
  try {
    config = parseConfig(readSettings(operatorEnvironment()));
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return 1;
  }
  const appKey = (values.app as string | undefined) ?? DEFAULT_APP;
  if (!config.apps.some((a) => a.key === appKey)) return classUsage(`--app: no app "${appKey}" (apps: ${config.apps.map((a) => a.key).join(", ")})`);
  const problem = await importClass(config, {
    file: exportPath,
    collection: values.collection as string | undefined,
    owner: values.owner as string | undefined,
    appKey,
    restart: values.restart === true,
    report: values.report as string | undefined,
    window,
  });
  return problem ? classUsage(problem) : 0;
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
