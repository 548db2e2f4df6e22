/**
 * The edge rules on the Express side of the HTTP server: the client-address rule behind `req.ip`,
 * CORS by CORS_ORIGINS (in place of Colyseus's, which reflects any origin), one store budget per request,
 * and the envelope for whatever no route serves. Matchmaking gets the same rules in
 * matchmake-handler.ts (but its store calls are each budgeted alone).
 */
import type { ErrorRequestHandler } from "express";
import type express from "express";
import type http from "node:http";
import { errorHandler, notFoundHandler } from "../api/error-handler";
import { shareStoreBudgets } from "../adapters/store/mongo/call-budget";
import { AppError } from "../core/errors";
import type { Logger } from "../logging/logger";
import type { TrustFunction } from "../net/client-ip";
import { CorsPolicy } from "../net/cors-policy";

const API_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE";

export interface EdgeRules {
  trust: TrustFunction;
  clientIp: (req: http.IncomingMessage) => string;
  cors: CorsPolicy;
  /**
   * A MongoDB store: each request's calls share one budget (call-budget.ts). Off on the other stores,
   * whose calls do not read it: the scope is an AsyncLocalStorage, and each one active taxes every
   * promise of the process (/api/users/me on PostgreSQL: 0.33 → … ms of CPU, docs/performance.md).
   */
  storeBudgets: boolean;
}

/** First thing in the Express hook, before any route. */
export function applyEdgeRules(app: express.Express, rules: EdgeRules): void {
  answerCors(app, rules.cors);
  // Express's own trust decisions (req.ips, req.protocol) and req.ip follow the same rule; req.ip is
  // the canonical address, never header text, so rate-limit keys stay bounded.
  app.set("trust proxy", rules.trust);
  Object.defineProperty(app.request, "ip", {
    configurable: true,
    enumerable: true,
    get(this: http.IncomingMessage) {
      return rules.clientIp(this);
    },
  });
  app.use((req, _res, next) => next(hasValidPercentEncoding(req.url) ? undefined : new AppError("invalid_request", { message: MALFORMED_URL })));
  // A request's calls of a MongoDB store share one query timeout while the database fails: a login
  // that looks the player up and then creates them answers within one timeout, not two (call-budget.ts).
  if (rules.storeBudgets) app.use((_req, res, next) => inStoreBudget(res, next));
}

/** Runs `work` with one store budget for the request `res` answers (call-budget.ts): until it is answered. */
export function inStoreBudget(res: http.ServerResponse, work: () => void): void {
  shareStoreBudgets(() => !res.writableEnded && !res.destroyed, work);
}

export const MALFORMED_URL = "The URL is not valid percent-encoding";

/**
 * Whether every `%` of the URL starts a valid escape of UTF-8 (`%ZZ`, a lone `%`, a truncated or
 * overlong sequence are not). Such a URL is refused on every route, with one answer: whatever reads
 * a parameter would otherwise either throw (the router decodes path parameters) or take the text
 * literally (the query parser does), so the same mistake would mean different things per route.
 */
export function hasValidPercentEncoding(url: string | undefined): boolean {
  if (!url || !url.includes("%")) return true;
  try {
    decodeURIComponent(url);
    return true;
  } catch {
    return false;
  }
}

/** Last thing in the Express hook: anything no route took (`//api/users/me`, `/api\users\me`) gets the envelope, not Express's HTML page. */
export function answerTheRestWithEnvelope(app: express.Express, logger: Logger): ErrorRequestHandler {
  // What Colyseus answers itself (its router, whose listener is replaced by ours), here so that it comes before the fallback.
  app.get("/__healthcheck", (_req, res) => void res.status(200).end());
  app.use(notFoundHandler);
  // Returned: the hot routes' front (hot-front.ts) ends its failures in this same handler.
  const onError = errorHandler(logger);
  app.use(onError);
  return onError;
}

/**
 * CORS by CORS_ORIGINS on every route. Colyseus 0.18 answers CORS for every request in a listener of
 * its own that reflects any origin with credentials; the server's request listeners are ours instead
 * (app.config.ts, takeOverRequests). A preflight is answered here (204, with the CORS headers only
 * for an allowed origin), whatever the path.
 */
function answerCors(app: express.Express, cors: CorsPolicy): void {
  app.use((req, res, next) => {
    setCorsHeaders(cors, req, res);
    if (CorsPolicy.isPreflight(req)) res.status(204).end();
    else next();
  });
}

/** The CORS headers of an API answer (not a preflight's: those are answered above). The hot routes' front sets them too. */
export function setCorsHeaders(cors: CorsPolicy, req: http.IncomingMessage, res: http.ServerResponse): void {
  const headers = cors.headersFor(req, API_METHODS);
  // setHeader, not res.set: these are plain strings, and res.set's content-type handling runs per call.
  for (const name in headers) res.setHeader(name, headers[name]!);
}
