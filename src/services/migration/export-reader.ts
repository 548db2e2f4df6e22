/**
 * Streams the records of a LeanCloud class export, one object at a time, in bounded memory, with the
 * byte offset after each record so an interrupted import can start again from where it stopped.
 *
 * LeanCloud writes its console export ("数据导出") as JSON Lines, one object per line (`.jsonl`);
 * its import format and REST answers are a JSON array or `{"results": [...]}` (docs/sdk/start/
 * dashboard-guide.mdx, "导出数据" / "JSON 文件格式要求", in the leancloud/docs repository). All three are
 * read here, by their JSON structure (json-scan.ts), not by matching text: a results file whose keys
 * come in another order (sorted, or a scan page with `cursor` first) reads the same, and a file that
 * stops inside its JSON reports the record it was cut in.
 */
import fs from "node:fs";
import { JsonRecordScan, type RecordPlace } from "./json-scan";

export interface ExportRecord {
  record: Record<string, unknown>;
  /** Byte offset just after this record: reading again from here yields the records after it. */
  endOffset: number;
  /** 1-based position of the record in the file (counted from `startOffset`'s record). */
  index: number;
}

/** A record that is not a JSON object: reported with its position, never fatal to the run. */
export class MalformedRecord {
  constructor(
    readonly endOffset: number,
    readonly index: number,
    readonly reason: string,
  ) {}
}

export type ExportItem = ExportRecord | MalformedRecord;

const NEWLINE = 0x0a;
/** One record larger than this is refused rather than held: a `_User` row is a few KB. */
const MAX_RECORD_BYTES = 1 << 20;
/** How much of the file's start is read to tell its layout. */
const HEAD_BYTES = 1 << 16;

/** How the reading ended, filled in by readExportRecords when the file is over. */
export interface ReadEnding {
  /** Why the file looks cut short (it ends inside its JSON), if it does. */
  cutShort?: string;
}

/**
 * The records of `file` from byte `startOffset` (0, or an `endOffset` of an earlier read): the objects
 * of JSON Lines, the elements of a top-level array, or of the `results` array of a top-level object
 * (its other keys, before or after it, are passed over). A file that ends inside its JSON yields the
 * record it was cut in as malformed and says so in `ending`.
 */
export async function* readExportRecords(file: string, startOffset = 0, ending: ReadEnding = {}): AsyncGenerator<ExportItem> {
  const layout = await detectLayout(file);
  const stream = fs.createReadStream(file, { start: startOffset, highWaterMark: 1 << 16 }) as AsyncIterable<Buffer>;
  yield* layout === "lines" ? readLines(stream, startOffset, ending) : readStructured(stream, startOffset, layout, ending);
}

/** JSON Lines: every non-blank line is one record, so one broken line costs that line only. */
async function* readLines(stream: AsyncIterable<Buffer>, startOffset: number, ending: ReadEnding): AsyncGenerator<ExportItem> {
  let offset = startOffset;
  let index = 0;
  let pieces: Buffer[] = [];
  let pending = 0;
  const emit = (line: Buffer, endOffset: number): ExportItem | undefined => {
    const text = line.toString("utf8").replace(/^\uFEFF/, "").trim();
    if (text === "") return undefined;
    return parseRecord(text, endOffset, ++index);
  };
  for await (const chunk of stream) {
    let lineStart = 0;
    for (let i = chunk.indexOf(NEWLINE); i !== -1; i = chunk.indexOf(NEWLINE, i + 1)) {
      pieces.push(chunk.subarray(lineStart, i));
      const item = emit(Buffer.concat(pieces), offset + i + 1);
      pieces = [];
      pending = 0;
      lineStart = i + 1;
      if (item) yield item;
    }
    if (lineStart < chunk.length) {
      pieces.push(chunk.subarray(lineStart));
      pending += chunk.length - lineStart;
      if (pending > MAX_RECORD_BYTES) throw new Error(`a line near byte ${offset} is longer than ${MAX_RECORD_BYTES} bytes: not a LeanCloud export?`);
    }
    offset += chunk.length;
  }
  const last = pieces.length > 0 ? emit(Buffer.concat(pieces), offset) : undefined;
  if (last instanceof MalformedRecord) {
    // A last line with no newline that does not parse: where a download or a copy stopped.
    ending.cutShort = "its last line is incomplete";
    yield new MalformedRecord(last.endOffset, last.index, "cut short: the file ends inside this record");
  } else if (last) yield last;
}

/** The records of a JSON array or `{results: [...]}` file, by its structure (see json-scan.ts). */
async function* readStructured(stream: AsyncIterable<Buffer>, startOffset: number, place: RecordPlace, ending: ReadEnding): AsyncGenerator<ExportItem> {
  const scan = new JsonRecordScan(place, startOffset > 0, MAX_RECORD_BYTES);
  let offset = startOffset;
  let index = 0;
  for await (const chunk of stream) {
    // A BOM before the JSON is no part of it.
    const skip = offset === 0 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf ? 3 : 0;
    for (const value of scan.feed(chunk.subarray(skip), offset + skip)) yield parseRecord(value.text, value.endOffset, ++index);
    offset += chunk.length;
  }
  const last = scan.finish(offset);
  if (last) yield parseRecord(last.text, last.endOffset, ++index);
  else if (scan.insideRecord) {
    ending.cutShort = "it ends inside a record";
    yield new MalformedRecord(offset, ++index, "cut short: the file ends inside this record");
  } else if (scan.unfinished) ending.cutShort = "it ends before its JSON is closed";
}

function parseRecord(text: string, endOffset: number, index: number): ExportRecord | MalformedRecord {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === "object" && !Array.isArray(value)) return { record: value as Record<string, unknown>, endOffset, index };
    return new MalformedRecord(endOffset, index, "not a JSON object");
  } catch {
    return new MalformedRecord(endOffset, index, "not valid JSON");
  }
}

type Layout = "lines" | RecordPlace;

/**
 * An array, `{results: [...]}`, or JSON Lines, told by the file's first value: an object whose
 * top-level keys reach `results` holding an array (before any `objectId`: a `_User` row with a
 * `results` column of its own stays a row) is a results file, whatever keys come first.
 */
async function detectLayout(file: string): Promise<Layout> {
  const handle = await fs.promises.open(file, "r");
  let head: Buffer;
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    head = buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  if (head[0] === 0x1f && head[1] === 0x8b) throw new Error(`${file} is gzip-compressed (LeanCloud's .tar.gz?): give the archive itself to the import, or unpack it (tar -xzf) and give the _User file`);
  if (head.subarray(0, 4).toString("latin1") === "PK\x03\x04") throw new Error(`${file} is a zip archive: unpack it and give the _User file`);
  const text = head.toString("utf8").replace(/^\uFEFF/, "").trimStart();
  if (text.startsWith("[")) return "array";
  if (!text.startsWith("{")) return "lines";
  return topLevelKeysReachResults(text) ? "results" : "lines";
}

/** Whether the first object of `text` has a `results` key holding an array before any `objectId` key. */
function topLevelKeysReachResults(text: string): boolean {
  const keyOrValue = /"((?:[^"\\]|\\.)*)"\s*(:?)\s*|[{}[\]]/gy;
  let depth = 0;
  let at = 0;
  while (at < text.length) {
    const ch = text[at];
    if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") {
      if (--depth === 0) return false;
    } else if (ch === '"') {
      keyOrValue.lastIndex = at;
      const match = keyOrValue.exec(text);
      if (!match) return false;
      if (depth === 1 && match[2] === ":") {
        if (match[1] === "objectId") return false;
        if (match[1] === "results") return text[keyOrValue.lastIndex] === "[";
      }
      at = keyOrValue.lastIndex;
      continue;
    }
    at++;
  }
  return false;
}
