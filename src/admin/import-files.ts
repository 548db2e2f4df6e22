/**
 * The files of `npm run import -- leancloud <export>` and the run of each: its checkpoint
 * (`<file>.import-state.json`) and its report, which is only ever appended to (a rerun, `--restart`
 * included, adds its lines after those of earlier runs: a merged player's line stays).
 */
import fs from "node:fs";
import path from "node:path";
import { loadImportState, runImport, type ImportState } from "../services/migration/import-run";
import type { PlayerImporter } from "../services/migration/player-importer";
import { isArchive, isUserFile, unpackUserFiles } from "./export-archive";
import { ImportProgress } from "./import-progress";

export interface ImportFileOptions {
  dryRun: boolean;
  restart: boolean;
  window: number;
  /** The report file (default: `<file>.import-report.jsonl`, `<file>.dry-run-report.jsonl` for a dry run). */
  report?: string;
  /** Start the report afresh (a dry run's first file): otherwise it is appended to. */
  truncateReport?: boolean;
  /** Where progress and notices go (stderr for the CLI). */
  out: NodeJS.WriteStream | NodeJS.WritableStream;
}

/** The export file, a folder's `_User` files in name order, or an archive's (unpacked next to it). */
export async function exportFiles(exportPath: string): Promise<string[]> {
  const stat = fs.statSync(exportPath, { throwIfNoEntry: false });
  if (!stat) throw new Error(`${exportPath} does not exist`);
  if (stat.isFile()) return isArchive(exportPath) ? unpackUserFiles(path.resolve(exportPath)) : [path.resolve(exportPath)];
  const names = fs.readdirSync(exportPath).sort();
  const files = names.filter(isUserFile).map((name) => path.resolve(exportPath, name));
  for (const name of names.filter((n) => /^_User.*\.(tar\.gz|tgz|tar|gz)$/.test(n))) files.push(...(await unpackUserFiles(path.resolve(exportPath, name))));
  if (files.length === 0) throw new Error(`${exportPath} holds no _User*.jsonl or _User*.json file (nor an archive of them)`);
  return files;
}

export async function importFile(file: string, importer: PlayerImporter, platforms: Record<string, string>, options: ImportFileOptions): Promise<ImportState> {
  const stateFile = options.dryRun ? undefined : `${file}.import-state.json`;
  const previous = stateFile && !options.restart ? loadImportState(stateFile) : undefined;
  if (previous?.done) {
    const cut = previous.cutShort ? `, but it was cut short (${previous.cutShort})` : "";
    options.out.write(`${file}: read completely on ${previous.updatedAt}${cut}; --restart reads it again (nothing is imported twice)\n`);
    return previous;
  }
  if (previous) options.out.write(`${file}: resuming after ${previous.counts.read} records (byte ${previous.offset} of ${previous.size})\n`);
  const reportFile = options.report ?? `${file}.${options.dryRun ? "dry-run" : "import"}-report.jsonl`;
  // A real run's report is the record of what happened to each player: kept across runs.
  const report = fs.createWriteStream(reportFile, { flags: options.truncateReport ? "w" : "a", mode: 0o600 });
  const progress = new ImportProgress(file, options.out as NodeJS.WriteStream, previous?.counts.read ?? 0);
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
