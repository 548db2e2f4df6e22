/**
 * One pass over an export: records are read as a stream and imported a window at a time (so the
 * stores batch the writes of one turn), and the checkpoint only ever moves past records whose import
 * has finished. A run stopped anywhere (kill -9 included) resumes from the checkpoint; records after
 * it that had already been imported are found by their objectId and count as `already`.
 */
import fs from "node:fs";
import { AppError } from "../../core/errors";
import { MalformedRecord, readExportRecords, type ExportItem, type ReadEnding } from "./export-reader";
import { readLeanCloudUser } from "./leancloud-users";
import type { ImportOutcome, PlayerImporter } from "./player-importer";

/** A store busy or briefly away (or a claim left by a crash, until its recovery) is waited for, about a minute in all, before the run stops. */
const UNAVAILABLE_ATTEMPTS = 16;
const UNAVAILABLE_BACKOFF_MS = 200;
const UNAVAILABLE_MAX_WAIT_MS = 5000;

export const OUTCOME_KINDS = ["imported", "merged", "already", "would_import", "would_merge", "skipped"] as const;
export type OutcomeCounts = Record<(typeof OUTCOME_KINDS)[number], number> & { read: number };

export interface ImportState {
  file: string;
  size: number;
  /** Bytes of the file whose records are all imported. */
  offset: number;
  counts: OutcomeCounts;
  /** Records that were JSON objects (the rest are skipped as malformed): a file with none is not an export. */
  valid?: number;
  /** Players whose LeanCloud username did not fit this server's rules: counted, not reported one by one. */
  usernamesNotKept?: number;
  done: boolean;
  /** Read to its end, but the file ends inside its JSON (see ReadEnding): a download or copy cut short. */
  cutShort?: string;
  startedAt: string;
  updatedAt: string;
}

/** Nearly every LeanCloud mini-game player has a random username: said once in the summary, not on every line. */
export const USERNAME_NOT_KEPT = "username_not_kept";

/** A file in which no record could be read: not a LeanCloud export, or not one this reads. */
export class NoRecordsError extends Error {}

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
  /** Imports one record some other way than as a player (a class's rows: leancloud-class.ts). */
  importRecord?(record: Record<string, unknown>): Promise<ImportOutcome>;
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
  if (state.size !== size) throw new Error(`${options.file} changed since the checkpoint was written (${state.size} → ${size} bytes); run with --restart to read it from its start (nothing is imported twice)`);
  // Imports at once: halved whenever the store answers "unavailable" (a busy store is one that times
  // out), grown back one at a time while it keeps up.
  const window = options.window ?? 64;
  let limit = window;
  let sinceBackoff = 0;
  const pressure = {
    backOff: () => {
      limit = Math.max(1, Math.floor(limit / 2));
      sinceBackoff = 0;
    },
    keptUp: () => {
      if (++sinceBackoff >= limit * 8 && limit < window) {
        limit++;
        sinceBackoff = 0;
      }
    },
  };
  // Records in reading order. The checkpoint, and the counts saved with it, cover the finished
  // prefix only: after a kill, a record past it is read again and counts once (as `already`).
  const inFlight: Array<{ endOffset: number; valid: boolean; outcome?: ImportOutcome }> = [];
  const running = new Set<Promise<void>>();
  let lastCheckpoint = now();
  let failure: unknown;
  const readBefore = state.counts.read;
  let index = 0;

  const advance = () => {
    while (inFlight.length > 0 && inFlight[0].outcome) {
      const done = inFlight.shift()!;
      state.offset = done.endOffset;
      state.counts.read++;
      state.counts[done.outcome!.kind]++;
      if (done.valid) state.valid = (state.valid ?? 0) + 1;
      if (done.outcome!.notes.includes(USERNAME_NOT_KEPT)) state.usernamesNotKept = (state.usernamesNotKept ?? 0) + 1;
    }
    if (options.stateFile && now() - lastCheckpoint >= (options.checkpointEveryMs ?? 1000)) {
      lastCheckpoint = now();
      writeState(options.stateFile, state, now);
      options.progress?.(state);
    }
  };

  const ending: ReadEnding = {};
  const records = readExportRecords(options.file, state.offset, ending);
  // A file the reader cannot go on in stops the run like a store that does not come back: what was
  // read before is finished and checkpointed first.
  const reading = async function* () {
    try {
      yield* records;
    } catch (err) {
      failure ??= err;
    }
  };
  for await (const item of reading()) {
    if (failure) break;
    const slot: { endOffset: number; valid: boolean; outcome?: ImportOutcome } = { endOffset: item.endOffset, valid: !(item instanceof MalformedRecord) };
    inFlight.push(slot);
    const position = readBefore + ++index;
    const task = importOne(item, options, pressure)
      .then((outcome) => {
        const line = reportLine(item, position, outcome);
        if (line) options.report(line);
        slot.outcome = outcome;
        pressure.keptUp();
        advance();
      })
      .catch((err: unknown) => {
        failure ??= err;
      });
    const tracked = task.finally(() => running.delete(tracked));
    running.add(tracked);
    while (running.size >= limit) await Promise.race(running);
  }
  await Promise.all(running);
  if (failure) {
    if (options.stateFile) writeState(options.stateFile, state, now);
    throw failure;
  }
  if (!state.valid) {
    // Nothing was imported: no checkpoint is left to say the file was done.
    if (options.stateFile) fs.rmSync(options.stateFile, { force: true });
    const what = state.counts.read === 0 ? "holds no record" : `has ${state.counts.read} records and none is a JSON object`;
    throw new NoRecordsError(`${options.file} ${what}: is it LeanCloud's _User export (JSON Lines, a JSON array or {"results": [...]})?`);
  }
  state.offset = size;
  state.done = true;
  if (ending.cutShort) state.cutShort = ending.cutShort;
  if (options.stateFile) writeState(options.stateFile, state, now);
  options.progress?.(state);
  return state;
}

async function importOne(item: ExportItem, options: ImportRunOptions, pressure: { backOff(): void }): Promise<ImportOutcome> {
  if (item instanceof MalformedRecord) return { kind: "skipped", reason: `malformed_record: ${item.reason}`, notes: [] };
  const reading = options.importRecord ? undefined : readLeanCloudUser(item.record, options.platforms);
  if (reading && "skip" in reading) return { kind: "skipped", reason: reading.skip, notes: [] };
  const unfinished = {};
  for (let attempt = 1; ; attempt++) {
    try {
      if (options.importRecord) return await options.importRecord(item.record);
      return await options.importer.importPlayer(reading!.player, unfinished);
    } catch (err) {
      // A store that did not answer in time may have written: the next attempt reads back by objectId
      // and carries on from what is there. Past the last attempt the run stops at its checkpoint.
      if (!(err instanceof AppError && err.code === "service_unavailable") || attempt >= UNAVAILABLE_ATTEMPTS) throw err;
      pressure.backOff();
      await new Promise((resolve) => setTimeout(resolve, Math.min(UNAVAILABLE_MAX_WAIT_MS, UNAVAILABLE_BACKOFF_MS * 2 ** (attempt - 1))));
    }
  }
}

function reportLine(item: ExportItem, index: number, outcome: ImportOutcome): ReportLine | undefined {
  const objectId = item instanceof MalformedRecord ? undefined : typeof item.record.objectId === "string" ? item.record.objectId : undefined;
  const notes = outcome.notes.filter((note) => note !== USERNAME_NOT_KEPT);
  if (outcome.kind === "skipped") return { objectId, index, outcome: outcome.kind, reason: outcome.reason, notes: notes.length ? notes : undefined };
  if (notes.length === 0 && outcome.kind !== "merged") return undefined;
  return { objectId, index, outcome: outcome.kind, notes, userId: outcome.userId };
}

/** Written to a temporary file and renamed: a kill mid-write leaves the previous checkpoint whole. */
function writeState(stateFile: string, state: ImportState, now: () => number): void {
  state.updatedAt = new Date(now()).toISOString();
  const temporary = `${stateFile}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(state));
  fs.renameSync(temporary, stateFile);
}
