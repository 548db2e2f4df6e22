import crypto from "node:crypto";
import type { Request, RequestHandler, Response, Router } from "express";
import type { Logger } from "../logging/logger";
import type { Metrics } from "../observability/metrics";
import { routeTemplateOf } from "./route-template";

/**
 * Gives each request an id (echoed in `x-request-id`) and logs one line when it finishes, by
 * route template and never by raw URL: login codes travel in the query string. `router` is the
 * router this middleware runs in; the template is looked up in it, whatever the outcome.
 */
export function requestContext(logger: Logger, metrics: Metrics | undefined, router: Router): RequestHandler {
  const templateOf = rememberedTemplates(router);
  return (req, res, next) => {
    // Read now: routers rewrite both while the request passes through them.
    const { baseUrl, path } = req;
    trackRequest(logger, metrics, req, res, () => {
      const template = templateOf(req.method, path);
      return template ? `${baseUrl}${template}` : "unmatched";
    });
    next();
  };
}

/** The request id and the finish line of one request; `routeOf` names its route once it has finished. */
export function trackRequest(logger: Logger, metrics: Metrics | undefined, req: Request, res: Response, routeOf: () => string): void {
  const incoming = req.headers["x-request-id"];
  const requestId = typeof incoming === "string" && /^[\w.-]{1,64}$/.test(incoming) ? incoming : crypto.randomUUID();
  res.setHeader("x-request-id", requestId);
  const started = process.hrtime.bigint();
  res.on("finish", () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const route = routeOf();
    metrics?.httpRequest(req.method, route, res.statusCode, ms / 1000);
    logger.debug({ requestId, method: req.method, route, status: res.statusCode, ms: Math.round(ms * 10) / 10 }, "request");
  });
}

/** Routes never change after boot, so each method and path is looked up once (bounded: paths are client-chosen). */
function rememberedTemplates(router: Router, max = 1000): (method: string, path: string) => string | undefined {
  const known = new Map<string, string | undefined>();
  return (method, path) => {
    const key = `${method} ${path}`;
    if (known.has(key)) return known.get(key);
    const template = routeTemplateOf(router, method, path);
    if (known.size >= max) known.delete(known.keys().next().value as string);
    known.set(key, template);
    return template;
  };
}
