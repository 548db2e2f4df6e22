/**
 * LeanCloud's data export arrives as an archive (a .tar.gz of the class files): its `_User` files are
 * unpacked next to it, into `<archive>.unpacked/`, and imported from there like any export file. A
 * file already unpacked whole is left as it is, so its checkpoint still holds when the import is run
 * again. Read with node's zlib and the tar format's 512-byte headers (ustar, GNU long names, pax
 * paths); a gzip of one file (no tar inside) is unpacked as that file.
 */
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

const BLOCK = 512;
/** The files of an archive that are imported: LeanCloud names a class's export after the class. */
export const USER_FILE = /^_User.*\.jsonl?$/;

/** A `_User` export file, not one of the files the import writes beside it (checkpoints, reports). */
export function isUserFile(name: string): boolean {
  return USER_FILE.test(name) && !/\.import-state\.json$|-report\.jsonl$|\.partial$|\.tmp$/.test(name);
}

export function isArchive(file: string): boolean {
  const head = Buffer.alloc(BLOCK);
  const fd = fs.openSync(file, "r");
  try {
    const read = fs.readSync(fd, head, 0, BLOCK, 0);
    return (read >= 2 && head[0] === 0x1f && head[1] === 0x8b) || (read === BLOCK && isTarHeader(head));
  } finally {
    fs.closeSync(fd);
  }
}

/** Unpacks the archive's `_User` files (once); their paths, in name order. */
export async function unpackUserFiles(archive: string): Promise<string[]> {
  const dir = `${archive}.unpacked`;
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const seen: string[] = [];
  const unpacked: string[] = [];
  try {
    await unpackInto(archive, dir, seen, unpacked);
  } catch (err) {
    const problem = (err as Error).message;
    if (/holds two files/.test(problem)) throw err;
    throw new Error(`${archive} cannot be unpacked (${problem}): an incomplete download? Download the export again`);
  }
  if (unpacked.length === 0) {
    const listed = seen.slice(0, 10).join(", ") || "nothing";
    throw new Error(`${archive} holds no _User*.jsonl or _User*.json file (it holds ${listed}${seen.length > 10 ? ", …" : ""}): is it the export of the _User class?`);
  }
  return unpacked.sort();
}

async function unpackInto(archive: string, dir: string, seen: string[], unpacked: string[]): Promise<void> {
  for await (const entry of archiveEntries(archive)) {
    seen.push(entry.name);
    const name = path.basename(entry.name);
    if (!isUserFile(name)) {
      await entry.skip();
      continue;
    }
    const target = path.join(dir, name);
    if (unpacked.includes(target)) throw new Error(`${archive} holds two files named ${name}: unpack it by hand and import each`);
    unpacked.push(target);
    if (entry.size !== undefined && fs.statSync(target, { throwIfNoEntry: false })?.size === entry.size) {
      await entry.skip();
      continue;
    }
    // Written aside and renamed: a file cut by a kill is never taken for a whole one.
    const partial = `${target}.partial`;
    const handle = await fs.promises.open(partial, "w", 0o600);
    try {
      for await (const piece of entry.body()) await handle.write(piece);
    } finally {
      await handle.close();
    }
    fs.renameSync(partial, target);
  }
}

interface ArchiveEntry {
  name: string;
  size?: number;
  body(): AsyncGenerator<Buffer>;
  skip(): Promise<void>;
}

/** The entries of a tar (gzipped or not), or the one file of a plain gzip; read in order, once. */
async function* archiveEntries(archive: string): AsyncGenerator<ArchiveEntry> {
  const raw = fs.createReadStream(archive);
  const gzipped = isGzip(archive);
  const bytes = new ByteReader((gzipped ? raw.pipe(zlib.createGunzip()) : raw) as AsyncIterable<Buffer>);
  const first = await bytes.peek(BLOCK);
  if (gzipped && !(first.length === BLOCK && isTarHeader(first))) {
    const name = path.basename(archive).replace(/\.gz$/i, "");
    yield { name, body: () => bytes.rest(), skip: async () => undefined };
    return;
  }
  let longName: string | undefined;
  for (;;) {
    const header = await bytes.take(BLOCK);
    if (header.length < BLOCK || header.every((b) => b === 0)) return;
    if (!isTarHeader(header)) throw new Error(`${archive}: not a tar archive this can read (a damaged header after ${bytes.position - BLOCK} bytes); unpack it by hand`);
    const size = parseInt(header.subarray(124, 136).toString("latin1").replace(/\0.*$/s, "").trim() || "0", 8);
    const type = String.fromCharCode(header[156] || 0x30);
    const padded = Math.ceil(size / BLOCK) * BLOCK;
    if (type === "L" || type === "x") {
      const meta = (await bytes.take(padded)).subarray(0, size).toString("utf8");
      longName = type === "L" ? meta.replace(/\0.*$/s, "") : (/(?:^|\n)\d+ path=([^\n]*)\n/.exec(meta)?.[1] ?? longName);
      continue;
    }
    const name = longName ?? tarName(header);
    longName = undefined;
    if (type !== "0" && type !== "\0") {
      await bytes.skip(padded);
      continue;
    }
    let consumed = false;
    yield {
      name,
      size,
      body: async function* () {
        consumed = true;
        yield* bytes.range(size);
        await bytes.skip(padded - size);
      },
      skip: async () => {
        consumed = true;
        await bytes.skip(padded);
      },
    };
    if (!consumed) await bytes.skip(padded);
  }
}

function tarName(header: Buffer): string {
  const field = (from: number, to: number) => header.subarray(from, to).toString("utf8").replace(/\0.*$/s, "");
  const prefix = header.subarray(257, 262).toString("latin1") === "ustar" ? field(345, 500) : "";
  return prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
}

/** A tar header's checksum: the sum of its bytes with the checksum field read as spaces. */
function isTarHeader(header: Buffer): boolean {
  const stored = parseInt(header.subarray(148, 156).toString("latin1").replace(/\0.*$/s, "").trim(), 8);
  if (Number.isNaN(stored)) return false;
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i];
  return sum === stored;
}

function isGzip(file: string): boolean {
  const head = Buffer.alloc(2);
  const fd = fs.openSync(file, "r");
  try {
    return fs.readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    fs.closeSync(fd);
  }
}

/** Bytes of a stream, taken by count. */
class ByteReader {
  private buffered: Buffer[] = [];
  private length = 0;
  position = 0;
  private readonly source: AsyncIterator<Buffer>;

  constructor(stream: AsyncIterable<Buffer>) {
    this.source = stream[Symbol.asyncIterator]();
  }

  async peek(count: number): Promise<Buffer> {
    while (this.length < count) {
      const next = await this.source.next();
      if (next.done) break;
      this.buffered.push(next.value);
      this.length += next.value.length;
    }
    if (this.buffered.length > 1 && this.buffered[0].length < count) this.buffered = [Buffer.concat(this.buffered)];
    return this.buffered.length === 0 ? Buffer.alloc(0) : this.buffered[0].subarray(0, count);
  }

  async take(count: number): Promise<Buffer> {
    const taken = await this.peek(count);
    this.drop(taken.length);
    return taken;
  }

  async skip(count: number): Promise<void> {
    for await (const piece of this.range(count)) void piece;
  }

  /** The next `count` bytes, piece by piece (memory: one piece). */
  async *range(count: number): AsyncGenerator<Buffer> {
    let left = count;
    while (left > 0) {
      const piece = await this.peek(1);
      if (piece.length === 0) throw new Error("the archive ends inside a file: an incomplete download? Download it again");
      const head = this.buffered[0].subarray(0, left);
      this.drop(head.length);
      left -= head.length;
      yield head;
    }
  }

  async *rest(): AsyncGenerator<Buffer> {
    for (;;) {
      const piece = await this.peek(1);
      if (piece.length === 0) return;
      const head = this.buffered[0];
      this.drop(head.length);
      yield head;
    }
  }

  private drop(count: number): void {
    let left = count;
    while (left > 0) {
      const head = this.buffered[0];
      if (head.length <= left) {
        this.buffered.shift();
        left -= head.length;
      } else {
        this.buffered[0] = head.subarray(left);
        left = 0;
      }
    }
    this.length -= count;
    this.position += count;
  }
}
