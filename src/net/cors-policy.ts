/**
 * One CORS rule for both edges (/api and /matchmake), from CORS_ORIGINS. Mini-game runtimes are not
 * browsers and need no CORS at all; only the browser playground and web builds do. So CORS is open
 * (any origin reflected, with credentials) in development, and off in production unless listed.
 */
import type { IncomingMessage, OutgoingHttpHeaders } from "node:http";

/** "any": reflect every origin; a list: exactly these origins; an empty list: no CORS headers at all. */
export type CorsOrigins = "any" | readonly string[];

/** How long a browser may cache a preflight answer. */
const PREFLIGHT_MAX_AGE_SEC = 600;

/** `scheme://host[:port]` in the form browsers send in the Origin header (lower case, no path or slash). */
export function canonicalOrigin(text: string): string | undefined {
  try {
    const url = new URL(text.trim());
    if (url.origin === "null" || url.pathname !== "/" || url.search || url.hash || text.trim().endsWith("/")) return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

export class CorsPolicy {
  private readonly allowed: ReadonlySet<string> | "any";

  constructor(origins: CorsOrigins) {
    this.allowed = origins === "any" ? "any" : new Set(origins);
  }

  /** The request's Origin if the policy lets a browser read the answer, else undefined. */
  allowedOrigin(req: IncomingMessage): string | undefined {
    const origin = req.headers.origin;
    if (typeof origin !== "string" || origin === "") return undefined;
    if (this.allowed === "any") return origin;
    return this.allowed.has(origin.toLowerCase()) ? origin : undefined;
  }

  /** A browser's preflight: OPTIONS with Origin and Access-Control-Request-Method. */
  static isPreflight(req: IncomingMessage): boolean {
    return req.method === "OPTIONS" && typeof req.headers.origin === "string" && req.headers["access-control-request-method"] !== undefined;
  }

  /**
   * Headers for this request. Every answer varies by Origin (a shared cache must not serve one
   * origin's answer to another); preflights of an allowed origin also list `methods` and echo the
   * requested headers.
   */
  headersFor(req: IncomingMessage, methods: string): OutgoingHttpHeaders {
    const headers: OutgoingHttpHeaders = { Vary: "Origin" };
    const origin = this.allowedOrigin(req);
    if (!origin) return headers;
    headers["Access-Control-Allow-Origin"] = origin;
    headers["Access-Control-Allow-Credentials"] = "true";
    // A web game on another origin reads GET /api/config's ETag to ask again with If-None-Match.
    headers["Access-Control-Expose-Headers"] = "ETag";
    if (CorsPolicy.isPreflight(req)) {
      headers["Access-Control-Allow-Methods"] = methods;
      const requested = req.headers["access-control-request-headers"];
      if (typeof requested === "string" && requested !== "") headers["Access-Control-Allow-Headers"] = requested;
      headers["Access-Control-Max-Age"] = String(PREFLIGHT_MAX_AGE_SEC);
      headers.Vary = "Origin, Access-Control-Request-Headers";
    }
    return headers;
  }
}
