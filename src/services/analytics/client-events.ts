/**
 * Client events (POST /api/events): each event of a batch is judged on its own, and an accepted
 * one is recorded under the client prefix (a client cannot write a server event such as a
 * delivered order). Refusals are counted by reason; nothing a client sends makes this throw.
 */
import type { AnalyticsRecorder, EventPropValue } from "../../core/ports/analytics-store";
import { NO_ANALYTICS_COUNTERS, type AnalyticsCounters } from "./analytics-events";
import { CLIENT_EVENT_PREFIX } from "./event-names";

export const CLIENT_EVENT_NAME = /^[a-z][a-z0-9_.]{0,47}$/;
const PROP_KEY = /^[A-Za-z][A-Za-z0-9_]{0,31}$/;
export const MAX_PROPS = 20;
export const MAX_PROP_TEXT = 200;
/** How far ahead of the server's clock an event's `at` may be (a client's clock runs a little fast). */
export const FUTURE_SKEW_MS = 5 * 60_000;

export type RefusalReason = "malformed" | "bad_name" | "bad_at" | "at_out_of_window" | "bad_props";

export interface ClientEventOptions {
  /** How far back `at` may be. */
  pastMs: number;
  now?: () => number;
  counters?: AnalyticsCounters;
}

export class ClientEvents {
  private readonly now: () => number;
  private readonly counters: AnalyticsCounters;

  constructor(
    private readonly recorder: AnalyticsRecorder,
    private readonly options: ClientEventOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.counters = options.counters ?? NO_ANALYTICS_COUNTERS;
  }

  accept(app: string, userId: string, events: unknown[]): { accepted: number; refused: number } {
    let accepted = 0;
    const refusals = new Map<RefusalReason, number>();
    for (const raw of events) {
      const judged = this.judge(raw);
      if (typeof judged === "string") {
        refusals.set(judged, (refusals.get(judged) ?? 0) + 1);
        continue;
      }
      this.recorder.record({ name: CLIENT_EVENT_PREFIX + judged.name, app, userId, at: judged.at, props: judged.props });
      accepted++;
    }
    let refused = 0;
    for (const [reason, n] of refusals) {
      this.counters.refused(reason, n);
      refused += n;
    }
    return { accepted, refused };
  }

  private judge(raw: unknown): { name: string; at: string; props: Record<string, EventPropValue> } | RefusalReason {
    if (!isPlainObject(raw) || Object.keys(raw).some((k) => k !== "name" && k !== "at" && k !== "props")) return "malformed";
    const { name, at, props } = raw;
    if (typeof name !== "string" || !CLIENT_EVENT_NAME.test(name)) return "bad_name";
    const now = this.now();
    let moment = now;
    if (at !== undefined) {
      if (typeof at !== "string" || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/.test(at) || Number.isNaN(Date.parse(at))) return "bad_at";
      moment = Date.parse(at);
      if (moment < now - this.options.pastMs || moment > now + FUTURE_SKEW_MS) return "at_out_of_window";
    }
    const checked = props === undefined ? {} : checkProps(props);
    if (!checked) return "bad_props";
    return { name, at: new Date(moment).toISOString(), props: checked };
  }
}

function checkProps(props: unknown): Record<string, EventPropValue> | undefined {
  if (!isPlainObject(props)) return undefined;
  const entries = Object.entries(props);
  if (entries.length > MAX_PROPS) return undefined;
  for (const [key, value] of entries) {
    if (!PROP_KEY.test(key)) return undefined;
    const fine = (typeof value === "string" && value.length <= MAX_PROP_TEXT) || (typeof value === "number" && Number.isFinite(value)) || typeof value === "boolean";
    if (!fine) return undefined;
  }
  return props as Record<string, EventPropValue>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}
