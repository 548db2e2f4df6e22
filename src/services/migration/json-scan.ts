/**
 * A streaming scan of JSON text that follows its structure (objects, arrays, keys, strings and their
 * escapes) byte by byte and hands out the bytes of every value found at one place in it: the
 * records. Only the keys of the top-level object are read (to find `results` in any order among
 * `cursor`, `count`, `className`…); what a record holds is left to JSON.parse. Memory is bounded by
 * the largest record: values outside records are passed over, not kept.
 *
 * JSON structure bytes are ASCII and every byte of a multi-byte UTF-8 character is ≥ 0x80, so the
 * scan works on bytes and never splits a character.
 */

/** Where records are: the elements of a top-level array, or of the `results` array of a top-level object. */
export type RecordPlace = "array" | "results";

const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

interface Frame {
  object: boolean;
  /** In an object: the next string is a key (after `{` or `,`), not a value (after `:`). */
  expectKey: boolean;
  /** The key of the value being read, kept for the top-level object only. */
  key?: string;
}

export interface ScannedValue {
  /** The value's bytes, as text. */
  text: string;
  /** Offset (in the whole input) just after the value. */
  endOffset: number;
}

export class JsonRecordScan {
  private readonly stack: Frame[];
  private inString = false;
  private escaped = false;
  /** The string being read is a key of the top-level object: its bytes are kept. */
  private keyBytes: number[] | undefined;
  /** A record being read: its pieces so far, and the depth its value started at. */
  private pieces: Buffer[] = [];
  private pending = 0;
  private recordDepth = -1;
  /** A record that is a bare scalar (number, literal): ends at the first delimiter. */
  private scalar = false;

  /** `resumed`: the input starts just after a record, inside the structure that holds records. */
  constructor(
    private readonly place: RecordPlace,
    resumed: boolean,
    private readonly maxRecordBytes: number,
  ) {
    this.stack = !resumed
      ? []
      : place === "array"
        ? [{ object: false, expectKey: false }]
        : [{ object: true, expectKey: false, key: "results" }, { object: false, expectKey: false }];
  }

  /** Whether the input read so far ends inside the JSON (unclosed brackets or string): cut short. */
  get unfinished(): boolean {
    return this.stack.length > 0 || this.inString || this.recordDepth !== -1;
  }

  /** Whether the input ended inside a record (its bytes so far are lost). */
  get insideRecord(): boolean {
    return this.recordDepth !== -1;
  }

  /** Ends the input: a scalar record that ran to the end of the input is complete. */
  finish(endOffset: number): ScannedValue | undefined {
    if (this.recordDepth === -1 || !this.scalar) return undefined;
    return this.take(undefined, 0, endOffset);
  }

  /** The records completed in `chunk`, which starts at `chunkOffset` of the input. */
  *feed(chunk: Buffer, chunkOffset: number): Generator<ScannedValue> {
    let start = this.recordDepth !== -1 ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) {
          this.inString = false;
          if (this.keyBytes) {
            this.stack[0].key = Buffer.from(this.keyBytes).toString("utf8");
            this.keyBytes = undefined;
          } else if (this.recordDepth === this.stack.length && this.recordDepth !== -1) {
            yield this.take(chunk, start, chunkOffset + i + 1, i + 1);
            start = -1;
          }
        } else if (this.keyBytes) this.keyBytes.push(byte);
        continue;
      }
      if (this.scalar) {
        if (isSpace(byte) || byte === COMMA || byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
          yield this.take(chunk, start, chunkOffset + i, i);
          start = -1;
        } else continue;
      }
      if (isSpace(byte)) continue;
      const top = this.stack[this.stack.length - 1];
      if (byte === COMMA) {
        if (top?.object) top.expectKey = true;
        continue;
      }
      if (byte === COLON) {
        if (top?.object) top.expectKey = false;
        continue;
      }
      if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
        // Past a bracket that closes nothing, or the wrong thing, where records are is unknown: stop, never guess.
        if (!top || top.object !== (byte === CLOSE_OBJECT)) throw this.broken(chunkOffset + i, `a "${String.fromCharCode(byte)}" that closes nothing open`);
        this.stack.pop();
        if (this.recordDepth === this.stack.length && this.recordDepth !== -1) {
          yield this.take(chunk, start, chunkOffset + i + 1, i + 1);
          start = -1;
        }
        continue;
      }
      // A value (or a key) begins.
      if (!top && byte !== (this.place === "array" ? OPEN_ARRAY : OPEN_OBJECT)) throw this.broken(chunkOffset + i, "text outside the JSON");
      const isKey = top?.object === true && top.expectKey;
      if (this.recordDepth === -1 && !isKey && this.atRecordPlace()) {
        this.recordDepth = this.stack.length;
        start = i;
      }
      if (byte === QUOTE) {
        this.inString = true;
        if (isKey && this.stack.length === 1) this.keyBytes = [];
      } else if (byte === OPEN_OBJECT) {
        this.stack.push({ object: true, expectKey: true });
      } else if (byte === OPEN_ARRAY) {
        this.stack.push({ object: false, expectKey: false });
      } else if (this.recordDepth === this.stack.length && start === i) {
        this.scalar = true;
      }
    }
    if (start !== -1 && this.recordDepth !== -1) {
      this.pieces.push(chunk.subarray(start));
      this.pending += chunk.length - start;
      if (this.pending > this.maxRecordBytes) {
        throw new Error(`a record near byte ${chunkOffset} is larger than ${this.maxRecordBytes} bytes: not a LeanCloud export?`);
      }
    }
  }

  private broken(offset: number, what: string): Error {
    return new Error(`the file's JSON is broken at byte ${offset} (${what}): records after it cannot be found. Is the file whole? Download the export again`);
  }

  private atRecordPlace(): boolean {
    const [outer, inner] = this.stack;
    if (this.place === "array") return this.stack.length === 1 && !outer.object;
    return this.stack.length === 2 && outer.object && outer.key === "results" && !inner.object;
  }

  private take(chunk: Buffer | undefined, start: number, endOffset: number, end = 0): ScannedValue {
    if (chunk) this.pieces.push(chunk.subarray(Math.max(0, start), end));
    const text = Buffer.concat(this.pieces).toString("utf8");
    this.pieces = [];
    this.pending = 0;
    this.recordDepth = -1;
    this.scalar = false;
    return { text, endOffset };
  }
}
