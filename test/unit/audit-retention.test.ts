/**
 * The audit retention's loop and timer, over a counting fake of the store's pruneAudit: batches until
 * one comes back short, nothing at all for 0 days, a run at start and then every interval, and
 * stop() waiting for a run under way (so the server never closes the store beneath it).
 */
import assert from "node:assert/strict";
import { AuditRetention, pruneAudit } from "../../src/services/console/audit-retention";
import { createLogger } from "../../src/logging/logger";

const logger = createLogger({ level: "silent" });

function fakeStore(total: number) {
  let left = total;
  const calls: Array<{ before: string; limit: number }> = [];
  return {
    calls,
    left: () => left,
    async pruneAudit(before: string, limit: number) {
      calls.push({ before, limit });
      const n = Math.min(left, limit);
      left -= n;
      return n;
    },
  };
}

describe("audit retention", () => {
  it("removes in batches until a batch comes back short, before now minus the retention", async () => {
    const store = fakeStore(2500);
    const now = Date.parse("2030-06-01T00:00:00.000Z");
    assert.deepEqual(await pruneAudit(store, 30, now), { removed: 2500, before: "2030-05-02T00:00:00.000Z" });
    assert.deepEqual(store.calls.map((c) => c.limit), [1000, 1000, 1000]);
  });

  it("keeps everything with a retention of 0 days", async () => {
    const store = fakeStore(10);
    assert.deepEqual(await pruneAudit(store, 0), { removed: 0, before: null });
    const retention = new AuditRetention(store, logger, { retentionDays: 0, intervalMs: 5 });
    retention.start();
    await new Promise((r) => setTimeout(r, 30));
    await retention.stop();
    assert.equal(store.calls.length, 0);
  });

  it("runs at start and every interval; stop waits for a run under way", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let runs = 0;
    let finished = 0;
    const store = {
      async pruneAudit() {
        runs++;
        if (runs === 2) await gate;
        finished++;
        return 0;
      },
    };
    const retention = new AuditRetention(store, logger, { retentionDays: 1, intervalMs: 20 });
    retention.start();
    assert.equal(runs, 1, "at start");
    for (let i = 0; i < 100 && runs < 2; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(runs, 2, "after an interval");
    const stopped = retention.stop();
    let done = false;
    void stopped.then(() => (done = true));
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(done, false, "waits for the run under way");
    release();
    await stopped;
    assert.equal(finished, 2);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(runs, 2, "no run after stop");
  });
});
