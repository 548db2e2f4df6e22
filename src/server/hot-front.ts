/**
 * The hot routes (login on every platform, the access token, `/users/me`, refresh: what a game calls
 * on every start) answered from the server's `request` listener, before Express is entered. On
 * these routes Express's own work — its application handler, the router's walk over the app's
 * layers with their path matchers, parseurl, a final handler built per request — was more than our
 * code's (docs/performance.md, 2026-11-28): a bare node:http hello answers five times as many
 * requests as the Express one on the same machine.
 *
 * Nothing here decides anything of its own. The request takes the same steps, in the same order, as
 * through the app: the edge rules of express-edge.ts (CORS headers, the store budget; a URL that is
 * not valid percent-encoding is left to the app, which refuses it before any route), the hot table's
 * request context and handlers (hot-routes.ts: the same functions the routers mount, with the same
 * validators, rate limits and body reader), and the app's own error handler for the envelope. The
 * request and response get the app's prototypes, as Express's application handler gives them: the
 * client address of `req.ip` (trusted proxies), `req.query` by the app's query parser, `res.json`
 * by the app's settings. Whatever the table does not hold, by method and exact path, goes on to the
 * app untouched. The drain and the request guard wrap this listener like any other (app.config.ts).
 */
import type express from "express";
import type { ErrorRequestHandler, NextFunction, Request, Response } from "express";
import type http from "node:http";
import type { HotRoutes } from "../api/hot-routes";
import type { CorsPolicy } from "../net/cors-policy";
import { hasValidPercentEncoding, inStoreBudget, setCorsHeaders } from "./express-edge";

export interface HotFrontOptions {
  hot: HotRoutes;
  /** The app whose request and response prototypes the hot requests take. */
  app: express.Express;
  cors: CorsPolicy;
  /** One store budget per request (MongoDB), as applyEdgeRules gives the app's requests. */
  storeBudgets: boolean;
  /** The app's last handler (answerTheRestWithEnvelope): the one mapper from errors to the envelope. */
  onError: ErrorRequestHandler;
}

/** A step of the server's request listener: true when it took the request, false to hand it on to the app as it came. */
export type HotFront = (req: http.IncomingMessage, res: http.ServerResponse) => boolean;

export function hotFront(options: HotFrontOptions): HotFront {
  const { hot, app, cors, storeBudgets, onError } = options;
  // The error handler answers whatever it is given and never passes on.
  const unanswered: NextFunction = () => undefined;
  return (req, res) => {
    const url = req.url ?? "";
    const query = url.indexOf("?");
    const entry = hot.find(req.method, query === -1 ? url : url.slice(0, query));
    if (!entry) return false;
    // Refused by the app's edge before any route, with no request context: the app answers it.
    if (!hasValidPercentEncoding(url)) return false;
    const request = adopt(app, req, res);
    const response = request.res!;
    setCorsHeaders(cors, req, res);
    const done: NextFunction = (err?: unknown) => onError(err, request, response, unanswered);
    if (storeBudgets) inStoreBudget(res, () => hot.serve(entry, request, response, done));
    else hot.serve(entry, request, response, done);
    return true;
  };
}

/** What Express's application handler and router do to a request before a root middleware runs it. */
function adopt(app: express.Express, req: http.IncomingMessage, res: http.ServerResponse): Request {
  const request = req as Request;
  const response = res as Response;
  request.res = response;
  response.req = request;
  Object.setPrototypeOf(req, app.request);
  Object.setPrototypeOf(res, app.response);
  response.locals = Object.create(null) as Response["locals"];
  request.originalUrl = req.url!;
  request.baseUrl = "";
  request.params = {};
  return request;
}
