/** isoUtc must write exactly what Date#toISOString writes, for every millisecond it takes on. */
import assert from "node:assert/strict";
import { IsoMemo, isoUtc } from "../../src/core/iso-time";

const same = (ms: number) => assert.equal(isoUtc(ms), new Date(ms).toISOString(), `at ${ms}`);

describe("isoUtc", () => {
  it("matches toISOString at the calendar's edges", () => {
    const edges = [
      0, 1, 999, 1000, 59_999, 86_399_999, 86_400_000,
      Date.UTC(1972, 1, 29), Date.UTC(2000, 1, 29, 23, 59, 59, 999), Date.UTC(2000, 2, 1),
      Date.UTC(2100, 1, 28, 12), Date.UTC(2100, 2, 1), Date.UTC(2400, 1, 29),
      Date.UTC(2026, 11, 31, 23, 59, 59, 999), Date.UTC(2027, 0, 1), Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    ];
    for (const ms of edges) same(ms);
  });

  it("matches toISOString on every day from 1970 to 2200, every 97th day to 9999, and at random instants", () => {
    const lastDay = Math.floor(Date.UTC(9999, 11, 31) / 86_400_000);
    const denseUntil = Math.floor(Date.UTC(2200, 0, 1) / 86_400_000);
    for (let day = 0; day <= lastDay; day += day < denseUntil ? 1 : 97) same(day * 86_400_000 + ((day * 7_919_993) % 86_400_000));
    for (let i = 0; i < 20_000; i++) same(Math.floor(Math.random() * Date.UTC(10000, 0, 1)));
  });

  it("leaves what it does not compute to Date: before 1970, from year 10000, fractions", () => {
    for (const ms of [-1, -86_400_001, Date.UTC(10000, 0, 1), Date.UTC(275760, 8, 13), 1.5]) same(ms);
    assert.throws(() => isoUtc(Number.NaN), RangeError);
  });
});

describe("IsoMemo", () => {
  it("answers what isoUtc answers, kept or not, and holds at most its capacity", () => {
    const memo = new IsoMemo(3);
    const instants = [0, Date.UTC(2026, 10, 26, 19, 0, 0, 7), 1, 0, Date.UTC(2000, 1, 29), 2, 3, 1];
    for (const ms of instants) assert.equal(memo.of(ms), isoUtc(ms));
    assert.ok((memo as unknown as { known: Map<number, string> }).known.size <= 3);
  });
});
