/**
 * The JSON Lines sink's shape: one object a line, the documented columns in a fixed order, and only
 * events the store accepted, each once.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { jsonLinesSink } from "../../src/adapters/analytics/jsonl-sink";
import type { AnalyticsEvent } from "../../src/core/ports/analytics-store";
import { createLogger } from "../../src/logging/logger";
import { EventWriter } from "../../src/services/analytics/event-writer";

const COLUMNS = ["id", "name", "app", "platform", "userId", "at", "props", "experiments", "liveEvents"];

describe("analytics JSON Lines sink", () => {
  it("writes each event the store accepted once, as a line with the documented columns", async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mgl-jsonl-")), "events.jsonl");
    let storeUp = false;
    const store = { append: async (_events: AnalyticsEvent[]) => { if (!storeUp) throw new Error("down"); } };
    let now = Date.parse("2026-03-01T00:00:00Z");
    const writer = new EventWriter(store, createLogger({ level: "silent" }), { maxBuffered: 100, batchSize: 2, flushMs: 100, sink: jsonLinesSink({ file }), now: () => now });
    writer.record({ name: "login", app: "default", platform: "wechat", userId: "u1", props: { new: true, appVersion: "1.0.0" } });
    writer.record({ name: "client.level_up", app: "default", platform: "douyin", userId: "u2", props: { level: 3 } });
    writer.record({ name: "order_delivered", app: "default", platform: "wechat", userId: "u1", id: "order:1", props: { revenue: 6, unit: "wechat_coins" } });
    await writer.flush();
    assert.equal(fs.existsSync(file), false, "nothing before the store accepted it");
    storeUp = true;
    now += 60_000;
    await writer.flush();
    const lines = fs.readFileSync(file, "utf8").split("\n");
    assert.equal(lines.pop(), "", "every line ends with a newline");
    assert.equal(lines.length, 3);
    const rows = lines.map((line) => JSON.parse(line));
    for (const row of rows) assert.deepEqual(Object.keys(row), COLUMNS);
    assert.deepEqual(rows.map((r) => [r.name, r.platform, r.userId]), [["login", "wechat", "u1"], ["client.level_up", "douyin", "u2"], ["order_delivered", "wechat", "u1"]]);
    assert.equal(rows[2].id, "order:1");
    assert.deepEqual(rows[0].props, { new: true, appVersion: "1.0.0" });
    assert.match(rows[0].at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });
});
