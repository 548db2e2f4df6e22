import http from "node:http";
import https from "node:https";
import { AppError } from "../../core/errors";
import type { PlatformClientDeps } from "../platform";

export interface JsonRequest {
  method: "GET" | "POST";
  url: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  /** Extra request headers (Douyin's `X-Token`). */
  headers?: Record<string, string>;
  /** Non-2xx statuses whose JSON body is still the platform's answer (Douyin may send its 401 body as HTTP 401). */
  answerStatuses?: readonly number[];
  timeoutMs: number;
  agent?: http.Agent;
}

/** Keep-alive agents shared by all platform clients: a login costs one round trip, not a handshake too. */
export const keepAliveAgents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 64 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

function unavailable(platform: string, reason: string, cause?: unknown): AppError {
  return new AppError("platform_unavailable", { data: { platform, reason }, cause });
}

/**
 * Calls a platform endpoint and parses the body as JSON whatever the Content-Type says
 * (WeChat has been seen answering JSON as text/plain). Network failures, timeouts, non-2xx
 * statuses and unparseable bodies all become `platform_unavailable`.
 */
function requestJson(platform: string, req: JsonRequest): Promise<Record<string, unknown>> {
  const url = new URL(req.url);
  for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
  const isHttps = url.protocol === "https:";
  const payload = req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body));
  const transport = isHttps ? https : http;
  const agent = req.agent ?? (isHttps ? keepAliveAgents.https : keepAliveAgents.http);

  return new Promise((resolve, reject) => {
    const request = transport.request(
      url,
      {
        method: req.method,
        agent,
        timeout: req.timeoutMs,
        headers: {
          accept: "application/json",
          // Douyin documents content-type as required even on GET.
          "content-type": "application/json",
          ...req.headers,
          ...(payload ? { "content-length": String(payload.length) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > 1_000_000) request.destroy(new Error("response too large"));
          else chunks.push(chunk);
        });
        res.on("end", () => {
          const status = res.statusCode ?? 0;
          const answered = (status >= 200 && status < 300) || req.answerStatuses?.includes(status);
          if (!answered) return reject(unavailable(platform, `http_${status}`));
          try {
            const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
            if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
              return reject(unavailable(platform, "malformed_response"));
            }
            resolve(parsed as Record<string, unknown>);
          } catch (err) {
            reject(unavailable(platform, "malformed_response", err));
          }
        });
        res.on("error", (err) => reject(unavailable(platform, "network_error", err)));
      },
    );
    // A hard deadline for the whole exchange; the socket timeout alone only covers idle periods.
    const deadline = setTimeout(() => request.destroy(new TimeoutError()), req.timeoutMs);
    request.on("close", () => clearTimeout(deadline));
    request.on("timeout", () => request.destroy(new TimeoutError()));
    request.on("error", (err) =>
      reject(unavailable(platform, err instanceof TimeoutError ? "timeout" : "network_error", err)),
    );
    request.end(payload);
  });
}

class TimeoutError extends Error {
  constructor() {
    super("platform request timed out");
  }
}

export interface PlatformCall {
  method: "GET" | "POST";
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  answerStatuses?: readonly number[];
  /** Another host of the same platform (Douyin's antidirt lives on developer.toutiao.com); default the API base URL. */
  baseUrl?: string;
  /** Whether a reply says "system busy" (-1), the only answer worth retrying. */
  isBusy: (reply: Record<string, unknown>) => boolean;
}

/** One platform API call with the client's base URL, timeout, agent and busy retries. */
export function callPlatformApi(platform: string, deps: PlatformClientDeps, call: PlatformCall): Promise<Record<string, unknown>> {
  const { settings, timeoutMs, busyRetries, agent, retryDelayMs } = deps;
  const { method, path, query, body, headers, answerStatuses } = call;
  const url = (call.baseUrl ?? settings.apiBaseUrl) + path;
  // The configured agent fits the API base URL's protocol; another host gets the shared agent of its own.
  const agentFor = call.baseUrl === undefined ? agent : undefined;
  return retryWhileBusy(
    () => requestJson(platform, { method, url, query, body, headers, answerStatuses, timeoutMs, agent: agentFor }),
    call.isBusy,
    busyRetries,
    retryDelayMs,
  );
}

/**
 * Retries `call` while `isBusy(result)` says the platform answered "system busy" (-1), with
 * exponential backoff; no other failure is retried (a login code can be used only once).
 */
async function retryWhileBusy<T>(
  call: () => Promise<T>,
  isBusy: (result: T) => boolean,
  retries: number,
  delayMs: (attempt: number) => number = (n) => 100 * 2 ** n,
): Promise<T> {
  let result = await call();
  for (let attempt = 0; attempt < retries && isBusy(result); attempt++) {
    await new Promise((r) => setTimeout(r, delayMs(attempt)));
    result = await call();
  }
  return result;
}
