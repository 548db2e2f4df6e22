import client from "prom-client";

/**
 * Prometheus metrics of one server instance. Services report through the small methods below
 * and never see prom-client; each app gets its own registry so test servers don't share counts.
 */
export class Metrics {
  readonly registry = new client.Registry();
  private readonly httpRequests = new client.Counter({
    name: "http_requests_total",
    help: "HTTP requests by route template and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [this.registry],
  });
  private readonly httpDuration = new client.Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP request latency by route template",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  private readonly logins = new client.Counter({
    name: "logins_total",
    help: "Logins by platform (or account) and outcome (ok or an error code)",
    labelNames: ["platform", "outcome"] as const,
    registers: [this.registry],
  });
  private readonly platformCalls = new client.Histogram({
    name: "platform_call_duration_seconds",
    help: "Calls to the platforms' server APIs by endpoint and outcome",
    labelNames: ["platform", "call", "outcome"] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly tokenCache = new client.Counter({
    name: "platform_access_token_requests_total",
    help: "Platform access-token requests: served from cache (hit) or fetched upstream (fetch)",
    labelNames: ["platform", "result"] as const,
    registers: [this.registry],
  });

  private readonly tokenInvalidations = new client.Counter({
    name: "platform_access_token_invalidations_total",
    help: "Cached platform access tokens deleted because a platform call rejected them",
    labelNames: ["platform"] as const,
    registers: [this.registry],
  });
  private readonly tokenForces = new client.Counter({
    name: "platform_access_token_forced_refreshes_total",
    help: "Forced stable-token refreshes after a rejection: done, or blocked by the 20-a-day / 30 s limit",
    labelNames: ["platform", "outcome"] as const,
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
    const labels = { method, route, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  loginFinished(platform: string, outcome: string): void {
    this.logins.inc({ platform, outcome });
  }

  platformCall(platform: string, call: string, outcome: string, seconds: number): void {
    this.platformCalls.observe({ platform, call, outcome }, seconds);
  }

  accessTokenServed(platform: string, result: "hit" | "fetch"): void {
    this.tokenCache.inc({ platform, result });
  }

  platformTokenInvalidated(platform: string): void {
    this.tokenInvalidations.inc({ platform });
  }

  platformTokenForced(platform: string, outcome: "done" | "blocked"): void {
    this.tokenForces.inc({ platform, outcome });
  }

  contentChecked(platform: string, verdict: string, source: string): void {
    this.contentChecks.inc({ platform, verdict, source });
  }

  contentCheckFellBack(platform: string, reason: string): void {
    this.contentCheckFallbacks.inc({ platform, reason });
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
