/**
 * The JSON Lines sink: every event the store accepted, one JSON object a line, for a log shipper to
 * carry into a warehouse (ClickHouse, BigQuery). The columns are fixed (docs/analytics.md): id,
 * name, app, platform, userId, at, props, experiments, liveEvents. A batch the store wrote is
 * written here once; a sink that fails is logged and counted, never retried (the store keeps the truth).
 */
import fs from "node:fs";
import type { AnalyticsEvent } from "../../core/ports/analytics-store";

export type EventSink = (events: readonly AnalyticsEvent[]) => Promise<void>;

/** One event as its line (without the newline): the columns in a fixed order. */
export function jsonLine(event: AnalyticsEvent): string {
  const { id, name, app, platform, userId, at, props, experiments, liveEvents } = event;
  return JSON.stringify({ id, name, app, platform, userId, at, props, experiments, liveEvents });
}

/** `stdout`, or a file appended to (created if missing). */
export function jsonLinesSink(target: "stdout" | { file: string }): EventSink {
  if (target === "stdout") {
    return (events) =>
      new Promise((resolve, reject) => {
        if (events.length === 0) return resolve();
        process.stdout.write(events.map((e) => `${jsonLine(e)}\n`).join(""), (err) => (err ? reject(err) : resolve()));
      });
  }
  return async (events) => {
    if (events.length > 0) await fs.promises.appendFile(target.file, events.map((e) => `${jsonLine(e)}\n`).join(""));
  };
}
