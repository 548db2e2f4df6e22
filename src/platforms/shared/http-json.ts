import { EventEmitter } from "node:events";
import { Agent, request } from "undici";
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
}

/** Platform answers are a few hundred bytes; anything past this is not one. */
const MAX_RESPONSE_BYTES = 1_000_000;

/**
 * Keep-alive connections shared by all platform clients, per origin: a login costs one round trip,
 * not a handshake too. undici rather than node:http: the same call costs about half the CPU
 * (measured ~80 → ~45 µs per call here), and a login is mostly such costs.
 */
export const platformDispatcher = new Agent({ connections: 64, keepAliveTimeout: 30_000, maxResponseSize: MAX_RESPONSE_BYTES });

function unavailable(platform: string, reason: string, cause?: unknown): AppError {
  return new AppError("platform_unavailable", { data: { platform, reason }, cause });
}

/**
 * Calls a platform endpoint and parses the body as JSON whatever the Content-Type says
 * (WeChat has been seen answering JSON as text/plain). Network failures, timeouts, non-2xx
 * statuses and unparseable bodies all become `platform_unavailable`.
 */
async function requestJson(platform: string, req: JsonRequest): Promise<Record<string, unknown>> {
  const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
  const headers: Record<string, string> = {
    accept: "application/json",
    // Douyin documents content-type as required even on GET.
    "content-type": "application/json",
    ...req.headers,
  };
  // A hard deadline for the whole exchange; undici's own timeouts only cover idle periods.
  const deadline = new Deadline(req.timeoutMs);
  let text: string;
  let status: number;
  try {
    const response = await request(withQuery(req.url, req.query), {
      method: req.method,
      headers,
      body: payload,
      dispatcher: platformDispatcher,
      signal: deadline,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
    });
    status = response.statusCode;
    text = await response.body.text();
  } catch (err) {
    const timedOut = deadline.aborted || isUndiciTimeout(err);
    throw unavailable(platform, timedOut ? "timeout" : "network_error", err);
  } finally {
    deadline.clear();
  }
  const answered = (status >= 200 && status < 300) || req.answerStatuses?.includes(status);
  if (!answered) throw unavailable(platform, `http_${status}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw unavailable(platform, "malformed_response", err);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw unavailable(platform, "malformed_response");
  return parsed as Record<string, unknown>;
}

/**
 * Aborts a request when the time is up. undici takes an EventEmitter as the abort signal; Node's
 * AbortController costs ~7 µs to make and listen to, an EventEmitter well under 1 µs, on every call.
 */
class Deadline extends EventEmitter {
  aborted = false;
  private readonly timer: NodeJS.Timeout;

  constructor(ms: number) {
    super();
    this.timer = setTimeout(() => {
      this.aborted = true;
      this.emit("abort");
    }, ms);
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

/** The URL with the defined query values added (URL-encoded). */
function withQuery(url: string, query: Record<string, string | undefined> | undefined): string {
  if (!query) return url;
  const params = new URLSearchParams();
  for (const key in query) {
    const value = query[key];
    if (value !== undefined) params.append(key, value);
  }
  const encoded = params.toString();
  if (!encoded) return url;
  return `${url}${url.includes("?") ? "&" : "?"}${encoded}`;
}

function isUndiciTimeout(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT" || code === "UND_ERR_CONNECT_TIMEOUT";
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

/** One platform API call with the client's base URL, timeout, connections and busy retries. */
export function callPlatformApi(platform: string, deps: PlatformClientDeps, call: PlatformCall): Promise<Record<string, unknown>> {
  const { settings, timeoutMs, busyRetries, retryDelayMs } = deps;
  const { method, path, query, body, headers, answerStatuses } = call;
  const url = (call.baseUrl ?? settings.apiBaseUrl) + path;
  return retryWhileBusy(
    () => requestJson(platform, { method, url, query, body, headers, answerStatuses, timeoutMs }),
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
