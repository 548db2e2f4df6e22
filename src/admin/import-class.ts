/**
 * `npm run import -- leancloud-class <Class export> --collection <name> --owner <pointer field>`:
 * a LeanStorage class's rows become cloud saves of the imported players (leancloud-class.ts says
 * how), run like the users import: streamed, a checkpoint every second (resume after any stop, kill
 * -9 included), a line per skipped row in the report, the summary on stdout.
 */
import fs from "node:fs";
import path from "node:path";
import { createUserStore } from "../adapters/store/create-user-store";
import type { AppConfig } from "../config/config";
import { buildSaves } from "../server/save-wiring";
import { checkCollection } from "../services/saves/save-rules";
import { loadImportState, runImport, type ImportState } from "../services/migration/import-run";
import { classImportTarget, importClassRow } from "../services/migration/leancloud-class";
import { PlayerImporter } from "../services/migration/player-importer";
import { importAppOf } from "./import-app";
import { ImportProgress } from "./import-progress";

export const CLASS_USAGE = `usage: npm run import -- leancloud-class <export> --collection <name> --owner <field> [options]
  <export> is LeanCloud's data export of one class (<Class>.jsonl, or a .json array / {"results": [...]})
  --collection <name>    the saves collection its rows go to (each row keyed by its objectId)
  --owner <field>        the row's pointer field naming its owner (a _User the users import brought over)
options: --app <key>, --restart, --report <file>, --window <n> (as for leancloud)`;

export interface ClassImportOptions {
  file: string;
  collection?: string;
  owner?: string;
  appKey: string;
  restart: boolean;
  report?: string;
  window: number;
}

/** Runs the import; a usage problem comes back as a string (the caller prints it with the usage). */
export async function importClass(config: AppConfig, options: ClassImportOptions): Promise<string | undefined> {
  if (!options.collection || !options.owner) return "--collection and --owner are required";
  try {
    checkCollection(options.collection, config.saves);
  } catch (err) {
    return `--collection: ${(err as Error).message}`;
  }
  const file = path.resolve(options.file);
  if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) return `${options.file} is not a file`;
  const collection = options.collection;
  const store = await createUserStore(config.store);
  const saves = await buildSaves(config).catch(async (err: unknown) => {
    await store.close();
    throw err;
  });
  try {
    const importer = new PlayerImporter(store, importAppOf(config, options.appKey), false);
    const target = classImportTarget({
      findByIdentity: (key) => store.findByIdentity(key),
      sourceKey: (objectId) => importer.sourceKey(objectId),
      saves: saves.saves,
      appKey: options.appKey,
      collection,
      ownerField: options.owner,
      maxBatch: config.saves.maxBatch,
    });
    const stateFile = `${file}.${collection}.import-state.json`;
    const previous = options.restart ? undefined : loadImportState(stateFile);
    const started = Date.now();
    let state: ImportState;
    if (previous?.done) {
      process.stderr.write(`${file}: imported completely on ${previous.updatedAt}; --restart reads it again (nothing is imported twice)\n`);
      state = previous;
    } else {
      if (previous) process.stderr.write(`${file}: resuming after ${previous.counts.read} rows (byte ${previous.offset} of ${previous.size})\n`);
      const report = fs.createWriteStream(options.report ?? `${file}.${collection}.import-report.jsonl`, { flags: previous ? "a" : "w" });
      const progress = new ImportProgress(file, process.stderr, previous?.counts.read ?? 0);
      try {
        state = await runImport({
          file,
          importer,
          platforms: {},
          importRecord: (row) => importClassRow(row, target),
          stateFile,
          resumeFrom: previous,
          window: options.window,
          report: (line) => report.write(`${JSON.stringify(line)}\n`),
          progress: (s) => progress.show(s),
        });
      } finally {
        progress.finish();
        await new Promise<void>((resolve) => report.end(resolve));
      }
    }
    const seconds = (Date.now() - started) / 1000;
    const { imported, already, skipped, read } = state.counts;
    const summary = {
      source: "leancloud-class",
      app: options.appKey,
      collection,
      file,
      done: state.done,
      counts: { read, imported, already, skipped },
      seconds: Number(seconds.toFixed(1)),
      rowsPerSecond: seconds > 0 ? Math.round(read / seconds) : read,
      peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    return undefined;
  } finally {
    await saves.close();
    await store.close();
  }
}
