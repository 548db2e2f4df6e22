/**
 * One pass over an export: records are read as a stream and imported a window at a time (so the
 * stores batch the writes of one turn), and the checkpoint only ever moves past records whose import
 * has finished. A run stopped anywhere (kill -9 included) resumes from the checkpoint; records after
 * it that had already been imported are found by their objectId and count as `already`.
 */
import fs from "node:fs";
import { MalformedRecord, readExportRecords, type ExportItem } from "./export-reader";
import { readLeanCloudUser } from "./leancloud-users";
import type { ImportOutcome, PlayerImporter } from "./player-importer";

export const OUTCOME_KINDS = ["imported", "merged", "already", "would_import", "would_merge", "skipped"] as const;
export type OutcomeCounts = Record<(typeof OUTCOME_KINDS)[number], number> & { read: number };

export interface ImportState {
  file: string;
  size: number;
  /** Bytes of the file whose records are all imported. */
  offset: number;
  counts: OutcomeCounts;
  done: boolean;
  startedAt: string;
  updatedAt: string;
}

/** One line of the per-player report: every player that was skipped or changed on the way. */
export interface ReportLine {
  objectId?: string;
  index: number;
  outcome: string;
  reason?: string;
  notes?: string[];
  userId?: string;
}

export interface ImportRunOptions {
  file: string;
  importer: PlayerImporter;
  platforms: Readonly<Record<string, string>>;
  /** Where the checkpoint lives; none for a dry run. */
  stateFile?: string;
  /** Resume from here (a loaded state), or start afresh. */
  resumeFrom?: ImportState;
  /** Records imported at once; the stores batch one turn's writes. */
  window?: number;
  report(line: ReportLine): void;
  progress?(state: ImportState): void;
  /** How often the checkpoint is written (ms). */
  checkpointEveryMs?: number;
  now?: () => number;
}

export function emptyCounts(): OutcomeCounts {
  return { read: 0, imported: 0, merged: 0, already: 0, would_import: 0, would_merge: 0, skipped: 0 };
}

export function loadImportState(stateFile: string): ImportState | undefined {
  try {
    return JSON.parse(fs.readFileSync(stateFile, "utf8")) as ImportState;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new Error(`the checkpoint ${stateFile} cannot be read (${(err as Error).message}); remove it to start over`);
  }
}

export async function runImport(options: ImportRunOptions): Promise<ImportState> {
  const now = options.now ?? Date.now;
  const size = fs.statSync(options.file).size;
  const started = new Date(now()).toISOString();
  const state: ImportState = options.resumeFrom
    ? { ...options.resumeFrom, counts: { ...options.resumeFrom.counts } }
    : { file: options.file, size, offset: 0, counts: emptyCounts(), done: false, startedAt: started, updatedAt: started };
  if (state.size !== size) throw new Error(`${options.file} changed since the checkpoint was written (${state.size} → ${size} bytes); remove the checkpoint to start over`);
  const window = options.window ?? 64;
  // Records in reading order; the checkpoint advances over the finished prefix only.
  const inFlight: Array<{ endOffset: number; finished: boolean }> = [];
  const running = new Set<Promise<void>>();
  let lastCheckpoint = now();
  let failure: unknown;
  const readBefore = state.counts.read;

  const advance = () => {
    while (inFlight.length > 0 && inFlight[0].finished) state.offset = inFlight.shift()!.endOffset;
    if (options.stateFile && now() - lastCheckpoint >= (options.checkpointEveryMs ?? 1000)) {
      lastCheckpoint = now();
      writeState(options.stateFile, state, now);
      options.progress?.(state);
    }
  };

  for await (const item of readExportRecords(options.file, state.offset)) {
    if (failure) break;
    const slot = { endOffset: item.endOffset, finished: false };
    inFlight.push(slot);
    state.counts.read++;
    const task = importOne(item, options)
      .then((outcome) => {
        state.counts[outcome.kind]++;
        const line = reportLine(item, readBefore + item.index, outcome);
        if (line) options.report(line);
        slot.finished = true;
        advance();
      })
      .catch((err: unknown) => {
        failure ??= err;
      });
    const tracked = task.finally(() => running.delete(tracked));
    running.add(tracked);
    if (running.size >= window) await Promise.race(running);
  }
  await Promise.all(running);
  if (failure) {
    if (options.stateFile) writeState(options.stateFile, state, now);
    throw failure;
  }
  state.offset = size;
  state.done = true;
  if (options.stateFile) writeState(options.stateFile, state, now);
  options.progress?.(state);
  return state;
}

async function importOne(item: ExportItem, options: ImportRunOptions): Promise<ImportOutcome> {
  if (item instanceof MalformedRecord) return { kind: "skipped", reason: `malformed_record: ${item.reason}`, notes: [] };
  const reading = readLeanCloudUser(item.record, options.platforms);
  if ("skip" in reading) return { kind: "skipped", reason: reading.skip, notes: [] };
  return options.importer.importPlayer(reading.player);
}

function reportLine(item: ExportItem, index: number, outcome: ImportOutcome): ReportLine | undefined {
  const objectId = item instanceof MalformedRecord ? undefined : typeof item.record.objectId === "string" ? item.record.objectId : undefined;
  if (outcome.kind === "skipped") return { objectId, index, outcome: outcome.kind, reason: outcome.reason, notes: outcome.notes.length ? outcome.notes : undefined };
  if (outcome.notes.length === 0 && outcome.kind !== "merged") return undefined;
  return { objectId, index, outcome: outcome.kind, notes: outcome.notes, userId: outcome.userId };
}

/** Written to a temporary file and renamed: a kill mid-write leaves the previous checkpoint whole. */
function writeState(stateFile: string, state: ImportState, now: () => number): void {
  state.updatedAt = new Date(now()).toISOString();
  const temporary = `${stateFile}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(state));
  fs.renameSync(temporary, stateFile);
}
