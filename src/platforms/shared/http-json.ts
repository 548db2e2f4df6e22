import { Agent } from "undici";
import { AppError } from "../../core/errors";
import type { PlatformClientDeps } from "../platform";

export interface JsonRequest {
  method: "GET" | "POST";
  /** Scheme, host and port, and any path prefix (the simulator mounts some platforms under one). */
  baseUrl: string;
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  /** Extra request headers (Douyin's `X-Token`). */
  headers?: Record<string, string>;
  /** Non-2xx statuses whose JSON body is still the platform's answer (Douyin may send its 401 body as HTTP 401). */
  answerStatuses?: readonly number[];
  /** Keys whose integer values are kept as their digits: int64 ids past 2^53 (Douyin's live room_id) would lose them as numbers. */
  exactIntegers?: readonly string[];
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
  const headers: Record<string, string> = {
    accept: "application/json",
    // Douyin documents content-type as required even on GET.
    "content-type": "application/json",
    ...req.headers,
  };
  const { origin, pathPrefix } = splitBaseUrl(req.baseUrl);
  let answer: { status: number; text: string };
  try {
    answer = await exchange({
      origin,
      path: withQuery(pathPrefix + req.path, req.query),
      method: req.method,
      headers,
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      timeoutMs: req.timeoutMs,
    });
  } catch (err) {
    throw unavailable(platform, err instanceof DeadlinePassed || isUndiciTimeout(err) ? "timeout" : "network_error", err);
  }
  const { status, text } = answer;
  const answered = (status >= 200 && status < 300) || req.answerStatuses?.includes(status);
  if (!answered) throw unavailable(platform, `http_${status}`);
  let parsed: unknown;
  try {
    const exact = req.exactIntegers;
    // Node 22's reviver sees each value's source text (its third argument).
    parsed = exact?.length
      ? JSON.parse(text, ((key: string, value: unknown, context?: { source?: string }) =>
          typeof value === "number" && exact.includes(key) && context?.source && /^-?\d+$/.test(context.source) ? context.source : value) as (k: string, v: unknown) => unknown)
      : JSON.parse(text);
  } catch (err) {
    throw unavailable(platform, "malformed_response", err);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw unavailable(platform, "malformed_response");
  return parsed as Record<string, unknown>;
}

class DeadlinePassed extends Error {
  constructor(ms: number) {
    super(`no complete answer within ${ms} ms`);
  }
}

interface Exchange {
  origin: string;
  path: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

/** undici's handler controller: what the handler may do to its request. */
interface RequestController {
  abort(reason: Error): void;
}

/**
 * One request and its whole answer, over undici's dispatch API. `request()` wraps the same call in
 * a response stream, an async resource and body mixins: about twice the CPU for a body of a few
 * hundred bytes (measured here: ~62 → ~28 µs per call). The deadline covers the whole exchange
 * (undici's own timeouts only cover idle periods) and settles the call even if undici never calls back.
 */
function exchange(req: Exchange): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let status = 0;
    let controller: RequestController | undefined;
    let settled = false;
    const settle = (err?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve({ status, text: chunks.length === 1 ? chunks[0].toString("utf8") : Buffer.concat(chunks).toString("utf8") });
    };
    const timer = setTimeout(() => {
      const passed = new DeadlinePassed(req.timeoutMs);
      controller?.abort(passed);
      settle(passed);
    }, req.timeoutMs);
    try {
      platformDispatcher.dispatch(
        { origin: req.origin, path: req.path, method: req.method, headers: req.headers, body: req.body, headersTimeout: req.timeoutMs, bodyTimeout: req.timeoutMs },
        {
          onRequestStart(c: RequestController) {
            controller = c;
            if (settled) c.abort(new DeadlinePassed(req.timeoutMs));
          },
          onResponseStart(_c: RequestController, statusCode: number) {
            status = statusCode;
          },
          onResponseData(_c: RequestController, chunk: Buffer) {
            chunks.push(chunk);
          },
          onResponseEnd() {
            settle();
          },
          onResponseError(_c: RequestController, err: Error) {
            settle(err);
          },
        },
      );
    } catch (err) {
      settle(err);
    }
  });
}

/** Base URLs come from the settings, a handful per process: each is split once. */
const splitBases = new Map<string, { origin: string; pathPrefix: string }>();

function splitBaseUrl(baseUrl: string): { origin: string; pathPrefix: string } {
  let split = splitBases.get(baseUrl);
  if (!split) {
    const url = new URL(baseUrl);
    split = { origin: url.origin, pathPrefix: url.pathname.replace(/\/+$/, "") };
    splitBases.set(baseUrl, split);
  }
  return split;
}

/** The path with the defined query values added (URL-encoded). */
function withQuery(path: string, query: Record<string, string | undefined> | undefined): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const key in query) {
    const value = query[key];
    if (value !== undefined) params.append(key, value);
  }
  const encoded = params.toString();
  if (!encoded) return path;
  return `${path}${path.includes("?") ? "&" : "?"}${encoded}`;
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
  /** See JsonRequest.exactIntegers. */
  exactIntegers?: readonly string[];
  /** Another host of the same platform (Douyin's antidirt lives on developer.toutiao.com); default the API base URL. */
  baseUrl?: string;
  /** Whether a reply says "system busy" (-1), the only answer worth retrying. */
  isBusy: (reply: Record<string, unknown>) => boolean;
}

/** One platform API call with the client's base URL, timeout, connections and busy retries. */
export function callPlatformApi(platform: string, deps: PlatformClientDeps, call: PlatformCall): Promise<Record<string, unknown>> {
  const { settings, timeoutMs, busyRetries, retryDelayMs } = deps;
  const { method, path, query, body, headers, answerStatuses, exactIntegers } = call;
  const baseUrl = call.baseUrl ?? settings.apiBaseUrl;
  return retryWhileBusy(
    () => requestJson(platform, { method, baseUrl, path, query, body, headers, answerStatuses, exactIntegers, timeoutMs }),
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
