/**
 * The rollup's compact players (player-days.ts) against the plain Set arithmetic they replace: distinct
 * players over sliding windows, shared players of two days, a sealed day reopened by a late event.
 */
import assert from "node:assert/strict";
import { distinctOverWindow, PlayerIds, PlayerSet, sharedCount } from "../../src/services/analytics/player-days";

/** A reproducible pseudo-random day of players out of `pool`. */
function randomDay(seed: number, size: number, pool: number): number[] {
  let x = seed * 2654435761;
  return Array.from({ length: size }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x % pool;
  });
}

describe("analytics: the rollup's compact players", () => {
  it("counts distinct players over 7- and 30-day windows as a union of Sets does", () => {
    const pool = 500;
    const days = Array.from({ length: 60 }, (_, d) => (d % 9 === 4 ? [] : randomDay(d + 1, 40 + (d % 13) * 7, pool)));
    const sealed = days.map((ids) => {
      const set = new PlayerSet();
      for (const id of ids) set.add(id);
      return set.seal();
    });
    for (const window of [7, 30]) {
      const expected = days.map((_, i) => new Set(days.slice(Math.max(0, i - window + 1), i + 1).flat()).size);
      assert.deepEqual(distinctOverWindow(sealed, window, pool), expected, `window ${window}`);
    }
  });

  it("counts the players two days share, and a late event reopens a sealed day", () => {
    const a = new PlayerSet();
    const b = new PlayerSet();
    for (const id of [9, 3, 3, 7, 1]) a.add(id);
    for (const id of [2, 3, 9, 10]) b.add(id);
    assert.deepEqual([...a.seal()], [1, 3, 7, 9]);
    assert.equal(sharedCount(a.seal(), b.seal()), 2);
    a.add(10);
    assert.equal(a.size, 5);
    assert.equal(sharedCount(a.seal(), b.seal()), 3);
    const ids = new PlayerIds();
    assert.deepEqual([ids.of("u1"), ids.of("u2"), ids.of("u1")], [0, 1, 0]);
    assert.equal(ids.size, 2);
  });
});
