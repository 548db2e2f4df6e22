import crypto from "node:crypto";
import type { RequestHandler } from "express";
import type { Logger } from "../logging/logger";
import type { Metrics } from "../observability/metrics";

/**
 * Gives each request an id (echoed in `x-request-id`) and logs one line when it finishes, by
 * route template and never by raw URL: login codes travel in the query string.
 */
export function requestContext(logger: Logger, metrics?: Metrics): RequestHandler {
  return (req, res, next) => {
    const incoming = req.header("x-request-id");
    const requestId = incoming && /^[\w.-]{1,64}$/.test(incoming) ? incoming : crypto.randomUUID();
    res.setHeader("x-request-id", requestId);
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const route = req.route?.path ? `${req.baseUrl}${req.route.path}` : "unmatched";
      metrics?.httpRequest(req.method, route, res.statusCode, ms / 1000);
      logger.debug({ requestId, method: req.method, route, status: res.statusCode, ms: Math.round(ms * 10) / 10 }, "request");
    });
    next();
  };
}
