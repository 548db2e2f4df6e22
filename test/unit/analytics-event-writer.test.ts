/**
 * The analytics event writer: recording never waits for or fails on the store; batches are written
 * later; a store outage keeps a bounded, counted backlog that is written once the store is back;
 * what shutdown cannot write is counted.
 */
import assert from "node:assert/strict";
import type { AnalyticsEvent } from "../../src/core/ports/analytics-store";
import { createLogger } from "../../src/logging/logger";
import { EventWriter } from "../../src/services/analytics/event-writer";
import { NO_ANALYTICS_COUNTERS, type AnalyticsCounters } from "../../src/services/analytics/analytics-events";

const logger = createLogger({ level: "silent" });

class FakeStore {
  stored = new Map<string, AnalyticsEvent>();
  batches: number[] = [];
  /** While set, every append fails (an outage); `hang` never answers. */
  down = false;
  hang = false;
  async append(events: AnalyticsEvent[]): Promise<void> {
    if (this.hang) return new Promise(() => undefined);
    if (this.down) throw new Error("connection refused");
    this.batches.push(events.length);
    for (const e of events) this.stored.set(e.id, structuredClone(e));
  }
}

function counting(): AnalyticsCounters & { counts: Record<string, number> } {
  const counts: Record<string, number> = {};
  const add = (key: string, n: number) => (counts[key] = (counts[key] ?? 0) + n);
  return { ...NO_ANALYTICS_COUNTERS, counts, recorded: (n) => add("recorded", n), written: (n) => add("written", n), dropped: (reason, n) => add(`dropped_${reason}`, n), writeFailed: () => add("failed", 1), setBacklog: (n) => (counts.backlog = n) };
}

const fact = (i: number, userId: string | null = `u${i % 3}`) => ({ name: "login", app: "default", platform: "wechat", userId, props: { new: i % 2 === 0 } });

describe("analytics event writer", () => {
  it("keeps nothing when recording is off (ANALYTICS_RECORD=false)", async () => {
    const store = new FakeStore();
    const counters = counting();
    const writer = new EventWriter(store, logger, { maxBuffered: 1000, batchSize: 4, flushMs: 1000, counters, recording: false });
    for (let i = 0; i < 10; i++) writer.record(fact(i));
    await writer.flush();
    assert.deepEqual([store.stored.size, store.batches.length, writer.backlog, counters.counts.recorded ?? 0], [0, 0, 0, 0]);
  });

  it("records without touching the store, then writes in batches of the configured size", async () => {
    const store = new FakeStore();
    const counters = counting();
    const writer = new EventWriter(store, logger, { maxBuffered: 1000, batchSize: 4, flushMs: 1000, counters });
    for (let i = 0; i < 10; i++) writer.record(fact(i));
    assert.equal(store.stored.size, 0, "nothing is written while recording");
    assert.equal(writer.backlog, 10);
    await writer.flush();
    assert.deepEqual(store.batches, [4, 4, 2]);
    assert.equal(counters.counts.written, 10);
    assert.equal(counters.counts.backlog, 0);
  });

  it("keeps a store outage's events as a bounded, counted backlog and writes them when the store is back", async () => {
    const store = new FakeStore();
    const counters = counting();
    let now = 0;
    const writer = new EventWriter(store, logger, { maxBuffered: 50, batchSize: 10, flushMs: 100, counters, now: () => now });
    store.down = true;
    for (let i = 0; i < 30; i++) writer.record(fact(i));
    await writer.flush();
    assert.equal(counters.counts.failed, 1);
    assert.equal(writer.backlog, 30, "kept for the next try");
    for (let i = 30; i < 80; i++) writer.record(fact(i)); // 20 fit, 30 are dropped
    assert.equal(writer.backlog, 50);
    assert.equal(counters.counts.dropped_buffer_full, 30);
    await writer.flush(); // within the back-off: the store is not asked
    assert.equal(counters.counts.failed, 1);
    store.down = false;
    now += 60_000;
    await writer.flush();
    assert.equal(store.stored.size, 50);
    assert.equal(writer.backlog, 0);
  });

  it("a batch written twice (its answer lost) is stored once: every event has its id before the first try", async () => {
    const store = new FakeStore();
    const writer = new EventWriter(store, logger, { maxBuffered: 100, batchSize: 100, flushMs: 100 });
    writer.record({ ...fact(1), id: "order:1" });
    writer.record(fact(2));
    const sent: string[] = [];
    const original = store.append.bind(store);
    let first = true;
    store.append = async (events) => {
      sent.push(...events.map((e) => e.id));
      await original(events);
      if (first) {
        first = false;
        throw new Error("timeout after the write"); // stored, but the writer does not know
      }
    };
    let now = 0;
    (writer as unknown as { now: () => number }).now = () => now;
    await writer.flush();
    now += 60_000;
    await writer.flush();
    assert.equal(sent.length, 4);
    assert.deepEqual(sent.slice(0, 2), sent.slice(2), "the same ids again");
    assert.equal(store.stored.size, 2);
  });

  it("looks up the platform of an event that did not name it while writing, not while recording", async () => {
    const store = new FakeStore();
    const asked: string[] = [];
    const writer = new EventWriter(store, logger, { maxBuffered: 100, batchSize: 100, flushMs: 100, platformOf: async (userId) => (asked.push(userId), userId === "known" ? "douyin" : undefined) });
    writer.record({ name: "soft_purchase", app: "default", userId: "known" });
    writer.record({ name: "soft_purchase", app: "default", userId: "known" });
    writer.record({ name: "soft_purchase", app: "default", userId: "lost" });
    assert.deepEqual(asked, []);
    await writer.flush();
    assert.deepEqual([...store.stored.values()].map((e) => e.platform), ["douyin", "douyin", "unknown"]);
    assert.deepEqual(asked, ["known", "lost"], "a known player's platform is remembered");
  });

  it("stamps each player's events with LiveOps' answer while writing, asked once per event even when the batch is retried; a failed stamp leaves them empty", async () => {
    const store = new FakeStore();
    let now = 0;
    const writer = new EventWriter(store, logger, { maxBuffered: 100, batchSize: 100, flushMs: 100, now: () => now });
    const asked: string[] = [];
    writer.stampWith(async (app, userId, at) => {
      asked.push(`${userId}@${at}`);
      if (userId === "u2") throw new Error("liveops store out");
      return { experiments: { exp: `v-${userId}` }, liveEvents: [`sale-${app}`] };
    });
    for (let i = 0; i < 3; i++) writer.record(fact(i));
    writer.record(fact(3, null));
    store.down = true;
    await writer.flush();
    assert.deepEqual(asked, ["u0@0", "u1@0", "u2@0"], "asked while writing, not while recording; not for an event without a player");
    store.down = false;
    now += 60_000;
    await writer.flush();
    assert.equal(asked.length, 3, "a retried batch keeps the stamps it got");
    const byUser = Object.fromEntries([...store.stored.values()].map((e) => [String(e.userId), [e.experiments, e.liveEvents]]));
    assert.deepEqual(byUser, { u0: [{ exp: "v-u0" }, ["sale-default"]], u1: [{ exp: "v-u1" }, ["sale-default"]], u2: [{}, []], null: [{}, []] });
  });

  it("forgets an erased player's buffered events", async () => {
    const store = new FakeStore();
    const writer = new EventWriter(store, logger, { maxBuffered: 100, batchSize: 100, flushMs: 100 });
    writer.record(fact(0, "gone"));
    writer.record(fact(1, "stays"));
    writer.forget("gone");
    await writer.flush();
    assert.deepEqual([...store.stored.values()].map((e) => e.userId), ["stays"]);
  });

  it("on shutdown writes what it can within its budget and counts the rest as dropped", async () => {
    const healthy = new FakeStore();
    const writer = new EventWriter(healthy, logger, { maxBuffered: 100, batchSize: 3, flushMs: 60_000 });
    for (let i = 0; i < 7; i++) writer.record(fact(i));
    await writer.close(1000);
    assert.equal(healthy.stored.size, 7);

    const hanging = new FakeStore();
    hanging.hang = true;
    const counters = counting();
    const stuck = new EventWriter(hanging, logger, { maxBuffered: 100, batchSize: 3, flushMs: 60_000, counters });
    for (let i = 0; i < 5; i++) stuck.record(fact(i));
    await stuck.close(50);
    assert.equal(counters.counts.dropped_shutdown, 5);
  });

  it("never throws from record, even when counting fails", () => {
    const broken = { ...NO_ANALYTICS_COUNTERS, recorded: () => { throw new Error("registry gone"); } };
    const writer = new EventWriter(new FakeStore(), logger, { maxBuffered: 10, batchSize: 10, flushMs: 100, counters: broken });
    assert.doesNotThrow(() => writer.record(fact(1)));
  });
});

describe("analytics event writer: prop keys", () => {
  it("rewrites keys a document store refuses (a dot, a dollar), so one event cannot hold back its batch", async () => {
    const store = new FakeStore();
    const writer = new EventWriter(store, logger, { maxBuffered: 10, batchSize: 10, flushMs: 100 });
    writer.record({ name: "soft_purchase", app: "default", userId: "u", platform: "wechat", props: { "cost.gems": 10, $where: "x", fine_key: 1 } });
    await writer.flush();
    assert.deepEqual([...store.stored.values()][0]!.props, { cost_gems: 10, _where: "x", fine_key: 1 });
  });
});

describe("analytics event writer: a store that never answers", () => {
  it("counts the unanswered write as failed and writes the backlog once the store answers again", async () => {
    const store = new FakeStore();
    store.hang = true;
    const counters = counting();
    let now = 0;
    const writer = new EventWriter(store, logger, { maxBuffered: 100, batchSize: 10, flushMs: 100, writeTimeoutMs: 30, counters, now: () => now });
    for (let i = 0; i < 5; i++) writer.record(fact(i));
    await writer.flush();
    assert.equal(counters.counts.failed, 1);
    assert.equal(writer.backlog, 5);
    store.hang = false;
    now += 60_000;
    await writer.flush();
    assert.equal(store.stored.size, 5);
  });
});
