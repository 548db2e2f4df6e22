/**
 * The rollup's players as small numbers: a day's active (or new) players are kept as a sorted
 * Int32Array of interned ids once the day is read, not as a Set of user-id strings. At 100,000 players
 * a day, 150 days of four keys each are 60 million entries: ~240 MB as arrays, several GB as Sets
 * (bench/results: the rollup of 90 days × 100,000 players a day).
 */

/** User ids → 0, 1, 2, … for one rollup. */
export class PlayerIds {
  private readonly ids = new Map<string, number>();

  of(userId: string): number {
    let id = this.ids.get(userId);
    if (id === undefined) this.ids.set(userId, (id = this.ids.size));
    return id;
  }

  get size(): number {
    return this.ids.size;
  }
}

/** A set of players being filled, then sealed into a sorted array; reopened if a late event comes. */
export class PlayerSet {
  private open: Set<number> | undefined = new Set();
  private sealed: Int32Array | undefined;

  add(id: number): void {
    if (!this.open) {
      this.open = new Set(this.sealed);
      this.sealed = undefined;
    }
    this.open.add(id);
  }

  seal(): Int32Array {
    if (this.open) {
      this.sealed = Int32Array.from(this.open).sort();
      this.open = undefined;
    }
    return this.sealed!;
  }

  get size(): number {
    return this.open ? this.open.size : this.sealed!.length;
  }
}

export const NO_PLAYERS = new Int32Array(0);

/** How many ids two sorted arrays share. */
export function sharedCount(a: Int32Array, b: Int32Array): number {
  let i = 0;
  let j = 0;
  let shared = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      shared++;
      i++;
      j++;
    } else if (a[i] < b[j]) i++;
    else j++;
  }
  return shared;
}

/**
 * For each day i, how many distinct players the days i−window+1 … i hold together (a day missing:
 * none), by a sliding count per player: each day's players are added once and removed once.
 */
export function distinctOverWindow(days: readonly Int32Array[], window: number, playerCount: number): number[] {
  const seen = new Uint8Array(playerCount);
  const out: number[] = new Array(days.length);
  let distinct = 0;
  for (let i = 0; i < days.length; i++) {
    for (const id of days[i]) if (seen[id]++ === 0) distinct++;
    const leaving = i - window;
    if (leaving >= 0) for (const id of days[leaving]) if (--seen[id] === 0) distinct--;
    out[i] = distinct;
  }
  return out;
}
