/** HTTP load through autocannon's programmatic API, bounded in time and in request count. */
import autocannon from "autocannon";

export interface HttpLoad {
  /** Base URL, e.g. http://127.0.0.1:1234 */
  baseUrl: string;
  /** A fixed path, or one built per request (for single-use login codes). */
  path: string | (() => string);
  /** Headers built per request from its path (a signed call: Douyin's feed); added to `headers`. */
  signed?: (path: string) => Record<string, string>;
  headers?: Record<string, string>;
  /** GET unless given; a body is sent as is with every request. */
  method?: "GET" | "POST";
  body?: string;
  connections: number;
  durationSec: number;
  /** Hard cap on requests, whichever of time and count comes first. */
  maxRequests: number;
  /** Per-request timeout in seconds. */
  timeoutSec?: number;
}

export interface Measurement {
  /** Mean of autocannon's per-second samples (its "Req/Sec" average), all answers. */
  reqPerSec: number;
  /** Latency percentiles in ms. */
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
  durationSec: number;
  /** Status code → count, for the non-2xx answers. */
  statusCounts: Record<string, number>;
}

let running: autocannon.Instance | undefined;

/** Stops the load in progress, if any (Ctrl-C). */
export function stopHttpLoad(): void {
  running?.stop();
}

export function runHttpLoad(load: HttpLoad): Promise<Measurement> {
  const dynamic = typeof load.path === "function" ? load.path : undefined;
  const fixedPath = typeof load.path === "string" ? load.path : "/";
  const options: autocannon.Options = {
    url: load.baseUrl,
    connections: load.connections,
    duration: load.durationSec,
    maxOverallRequests: load.maxRequests,
    timeout: load.timeoutSec ?? 30,
    headers: load.headers,
    requests: [
      dynamic
        ? {
            method: load.method ?? "GET",
            body: load.body,
            setupRequest: (req: autocannon.Request) => {
              const path = dynamic();
              return load.signed ? { ...req, path, headers: { ...req.headers, ...load.signed(path) } } : { ...req, path };
            },
          }
        : { method: load.method ?? "GET", body: load.body, path: fixedPath },
    ],
  };
  return new Promise((resolve, reject) => {
    running = autocannon(options, (err: unknown, result: autocannon.Result) => {
      running = undefined;
      if (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      const statusCounts: Record<string, number> = {};
      for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) {
        if (!code.startsWith("2") && stat.count) statusCounts[code] = stat.count;
      }
      resolve({
        reqPerSec: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        ok: result["2xx"],
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        durationSec: result.duration,
        statusCounts,
      });
    });
  });
}
