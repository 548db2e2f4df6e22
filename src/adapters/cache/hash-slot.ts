/**
 * Redis Cluster's key → slot mapping (CRC16/XMODEM of the key, or of its `{hash tag}`, mod 16384),
 * so the cache can tell which keys one atomic command may touch together. The session keys carry
 * the user id as a hash tag (`access_token:{userId}`), which puts a user's keys in one slot.
 */
const SLOTS = 16384;

const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[i] = crc;
  }
  return table;
})();

function crc16(bytes: Buffer): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ byte) & 0xff];
  return crc;
}

/** The part of a key Redis Cluster hashes: the first non-empty `{…}`, else the whole key. */
export function hashedPart(key: string): string {
  const open = key.indexOf("{");
  if (open === -1) return key;
  const close = key.indexOf("}", open + 1);
  return close === -1 || close === open + 1 ? key : key.slice(open + 1, close);
}

export function hashSlot(key: string): number {
  return crc16(Buffer.from(hashedPart(key), "utf8")) % SLOTS;
}

/** Positions of `keys` grouped by slot, in first-seen order. */
export function groupBySlot(keys: readonly string[]): number[][] {
  const groups = new Map<number, number[]>();
  keys.forEach((key, i) => {
    const slot = hashSlot(key);
    const group = groups.get(slot);
    if (group) group.push(i);
    else groups.set(slot, [i]);
  });
  return [...groups.values()];
}
