/**
 * Streams the records of a LeanCloud class export, one object at a time, in bounded memory, with the
 * byte offset after each record so an interrupted import can start again from where it stopped.
 *
 * LeanCloud writes its console export ("数据导出") as JSON Lines, one object per line (`.jsonl`);
 * its import format and REST answers are a JSON array or `{"results": [...]}` (docs/sdk/start/
 * dashboard-guide.mdx, "导出数据" / "JSON 文件格式要求", in the leancloud/docs repository). All three are
 * read here. JSON structure bytes are ASCII and every byte of a multi-byte UTF-8 character is ≥ 0x80,
 * so the scan below can work on bytes and never splits a character.
 */
import fs from "node:fs";

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

const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;
/** One record larger than this is refused rather than held: a `_User` row is a few KB. */
const MAX_RECORD_BYTES = 1 << 20;

/**
 * The records of `file` from byte `startOffset` (0, or an `endOffset` of an earlier read). Objects at
 * the top level (JSON Lines), inside a top-level array, or inside a top-level object's array (the
 * `results` wrapper) are records.
 */
export async function* readExportRecords(file: string, startOffset = 0): AsyncGenerator<ExportItem> {
  const layout = await detectLayout(file);
  const stream = fs.createReadStream(file, { start: startOffset, highWaterMark: 1 << 16 }) as AsyncIterable<Buffer>;
  yield* layout === "lines" ? readLines(stream, startOffset) : readArrayItems(stream, startOffset, layout === "array" ? 1 : 2);
}

/** JSON Lines: every non-blank line is one record, so one broken line costs that line only. */
async function* readLines(stream: AsyncIterable<Buffer>, startOffset: number): AsyncGenerator<ExportItem> {
  let offset = startOffset;
  let index = 0;
  let pieces: Buffer[] = [];
  let pending = 0;
  const emit = (line: Buffer, endOffset: number): ExportItem | undefined => {
    const text = line.toString("utf8").trim();
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
  if (last) yield last;
}

/** Objects directly inside the array at `recordDepth` (1: a top-level array, 2: `{results: [...]}`). */
async function* readArrayItems(stream: AsyncIterable<Buffer>, startOffset: number, recordDepth: number): AsyncGenerator<ExportItem> {
  // Resuming from a record's end offset means standing inside the array already.
  let depth = startOffset === 0 ? 0 : recordDepth;
  let inString = false;
  let escaped = false;
  let offset = startOffset;
  let index = 0;
  let pieces: Buffer[] = [];
  let pending = 0;
  for await (const chunk of stream) {
    let pieceStart = pieces.length > 0 ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) inString = false;
        continue;
      }
      if (byte === QUOTE) {
        inString = true;
      } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
        if (byte === OPEN_OBJECT && depth === recordDepth) pieceStart = i;
        depth++;
      } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
        depth--;
        if (byte === CLOSE_OBJECT && depth === recordDepth && pieceStart !== -1) {
          pieces.push(chunk.subarray(pieceStart, i + 1));
          const text = Buffer.concat(pieces).toString("utf8");
          pieces = [];
          pending = 0;
          pieceStart = -1;
          yield parseRecord(text, offset + i + 1, ++index);
        }
      }
    }
    if (pieceStart !== -1) {
      pieces.push(chunk.subarray(pieceStart));
      pending += chunk.length - pieceStart;
      if (pending > MAX_RECORD_BYTES) throw new Error(`a record near byte ${offset} is larger than ${MAX_RECORD_BYTES} bytes: not a LeanCloud export?`);
    }
    offset += chunk.length;
  }
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

type Layout = "lines" | "array" | "results";

/** JSON Lines, an array, or `{results: [...]}`: decided by the first bytes of the file. */
async function detectLayout(file: string): Promise<Layout> {
  const handle = await fs.promises.open(file, "r");
  try {
    const head = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const text = head.subarray(0, bytesRead).toString("utf8").replace(/^\uFEFF/, "").trimStart();
    if (text.startsWith("[")) return "array";
    if (/^\{\s*"results"\s*:\s*\[/.test(text)) return "results";
    return "lines";
  } finally {
    await handle.close();
  }
}
