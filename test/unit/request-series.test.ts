import assert from "node:assert/strict";
import client from "prom-client";
import { RequestSeries } from "../../src/observability/request-series";

const BOUNDS = [0.001, 0.01, 0.1, 1];
const NAMES = { counter: "http_requests_total", counterHelp: "requests", histogram: "http_request_duration_seconds", histogramHelp: "latency" };

/** prom-client's own Counter and Histogram, fed the same observations: the text must not differ. */
function promClientReference() {
  const registry = new client.Registry();
  const labelNames = ["method", "route", "status"] as const;
  const counter = new client.Counter({ name: NAMES.counter, help: NAMES.counterHelp, labelNames, registers: [registry] });
  const histogram = new client.Histogram({ name: NAMES.histogram, help: NAMES.histogramHelp, labelNames, buckets: BOUNDS, registers: [registry] });
  return {
    registry,
    observe(method: string, route: string, status: number, seconds: number) {
      const labels = { method, route, status: String(status) };
      counter.inc(labels);
      histogram.observe(labels, seconds);
    },
  };
}

describe("per-request series", () => {
  it("write exactly what prom-client's Counter and Histogram write for the same requests", async () => {
    const registry = new client.Registry();
    const ours = new RequestSeries(BOUNDS, NAMES, registry);
    const reference = promClientReference();
    const requests: [string, string, number, number][] = [
      ["GET", "/api/users/me", 200, 0.0004],
      ["GET", "/api/users/me", 200, 0.001], // on a bound: counted in that bucket
      ["GET", "/api/users/me", 200, 0.05],
      ["GET", "/api/users/me", 401, 0.002],
      ["POST", "/api/auth/login", 429, 7], // above every bound: only +Inf
      ["GET", "unmatched", 404, 0.3],
    ];
    for (const r of requests) {
      ours.observe(...r);
      reference.observe(...r);
    }
    const text = await registry.metrics();
    assert.equal(text, await reference.registry.metrics());
    assert.match(text, /http_request_duration_seconds_bucket\{le="0.001",method="GET",route="\/api\/users\/me",status="200"\} 2/);
    assert.match(text, /http_requests_total\{method="POST",route="\/api\/auth\/login",status="429"\} 1/);
  });

  it("start again from nothing when the registry is reset", async () => {
    const registry = new client.Registry();
    const ours = new RequestSeries(BOUNDS, NAMES, registry);
    ours.observe("GET", "/api/users/me", 200, 0.01);
    registry.resetMetrics();
    assert.doesNotMatch(await registry.metrics(), /http_requests_total\{/);
  });
});
