import client from "prom-client";
import { RequestSeries } from "./request-series";

/**
 * Prometheus metrics of one server instance. Services report through the small methods below
 * and never see prom-client; each app gets its own registry so test servers don't share counts.
 */
export class Metrics {
  readonly registry = new client.Registry();
  private readonly requests = new RequestSeries(
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    {
      counter: "http_requests_total",
      counterHelp: "HTTP requests by route template and status",
      histogram: "http_request_duration_seconds",
      histogramHelp: "HTTP request latency by route template",
    },
    this.registry,
  );
  private readonly logins = new client.Counter({
    name: "logins_total",
    help: "Logins by platform (or account), app and outcome (ok or an error code)",
    labelNames: ["platform", "app", "outcome"] as const,
    registers: [this.registry],
  });
  private readonly platformCalls = new client.Histogram({
    name: "platform_call_duration_seconds",
    help: "Calls to the platforms' server APIs by app, endpoint and outcome",
    labelNames: ["platform", "app", "call", "outcome"] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly tokenCache = new client.Counter({
    name: "platform_access_token_requests_total",
    help: "Platform access-token requests by app: served from cache (hit) or fetched upstream (fetch)",
    labelNames: ["platform", "app", "result"] as const,
    registers: [this.registry],
  });

  private readonly tokenInvalidations = new client.Counter({
    name: "platform_access_token_invalidations_total",
    help: "Cached platform access tokens deleted because a platform call rejected them",
    labelNames: ["platform", "app"] as const,
    registers: [this.registry],
  });
  private readonly tokenForces = new client.Counter({
    name: "platform_access_token_forced_refreshes_total",
    help: "Forced stable-token refreshes after a rejection: done, or blocked by the 20-a-day / 30 s limit",
    labelNames: ["platform", "app", "outcome"] as const,
    registers: [this.registry],
  });

  private readonly contentChecks = new client.Counter({
    name: "content_checks_total",
    help: "Texts moderated: by platform (none: no platform identity), verdict, and who decided (platform, cache, word_list)",
    labelNames: ["platform", "verdict", "source"] as const,
    registers: [this.registry],
  });
  private readonly contentCheckFallbacks = new client.Counter({
    name: "content_check_fallbacks_total",
    help: "Platform content checks that failed (timeout, quota, 5xx, player not checkable…) and fell back to the policy",
    labelNames: ["platform", "reason"] as const,
    registers: [this.registry],
  });

  constructor() {
    client.collectDefaultMetrics({ register: this.registry });
  }

  httpRequest(method: string, route: string, status: number, seconds: number): void {
    this.requests.observe(method, route, status, seconds);
  }

  private readonly loginSeries = new Map<string, client.Counter.Internal>();
  private readonly platformCallSeries = new Map<string, client.Histogram.Internal<"platform" | "app" | "call" | "outcome">>();

  /** One login: per-login series are cached like the per-request ones (outcomes are error codes, a fixed set). */
  loginFinished(platform: string, app: string, outcome: string): void {
    seriesOf(this.loginSeries, this.logins, [platform, app, outcome]).inc();
  }

  platformCall(platform: string, app: string, call: string, outcome: string, seconds: number): void {
    seriesOf(this.platformCallSeries, this.platformCalls, [platform, app, call, outcome]).observe(seconds);
  }

  private readonly tokenCacheSeries = new Map<string, client.Counter.Internal>();

  /** On every access-token request: cached like the per-request series. */
  accessTokenServed(platform: string, app: string, result: "hit" | "fetch"): void {
    seriesOf(this.tokenCacheSeries, this.tokenCache, [platform, app, result]).inc();
  }

  platformTokenInvalidated(platform: string, app: string): void {
    this.tokenInvalidations.inc({ platform, app });
  }

  platformTokenForced(platform: string, app: string, outcome: "done" | "blocked"): void {
    this.tokenForces.inc({ platform, app, outcome });
  }

  contentChecked(platform: string, verdict: string, source: string): void {
    this.contentChecks.inc({ platform, verdict, source });
  }

  contentCheckFellBack(platform: string, reason: string): void {
    this.contentCheckFallbacks.inc({ platform, reason });
  }

  private readonly subscribeMessages = new client.Counter({
    name: "subscribe_messages_total",
    help: "Subscribe messages sent to players, by platform and result (sent, not_granted, invalid, rate_limited, failed)",
    labelNames: ["platform", "result"] as const,
    registers: [this.registry],
  });

  subscribeMessageSent(platform: string, result: string): void {
    this.subscribeMessages.inc({ platform, result });
  }

  private readonly pushRefusals = new client.Counter({
    name: "platform_pushes_refused_total",
    help: "Platform pushes refused or set aside (forged, stale, replayed, plain-mode gift pushes, an id granted to another player…), by platform, push and reason",
    labelNames: ["platform", "push", "reason"] as const,
    registers: [this.registry],
  });

  pushRefused(platform: string, push: string, reason: string): void {
    this.pushRefusals.inc({ platform, push, reason });
  }

  /** Gauges read at scrape time, e.g. rooms and connected clients from the room layer. */
  gauge(name: string, help: string, read: () => number): void {
    new client.Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }
}

/** A metric's child for these label values, made once: one Map lookup instead of prom-client's labels hashing. */
function seriesOf<Child>(cache: Map<string, Child>, metric: { labels(...values: string[]): Child }, values: string[]): Child {
  const key = values.join("\u0000");
  let child = cache.get(key);
  if (!child) {
    child = metric.labels(...values);
    cache.set(key, child);
  }
  return child;
}
