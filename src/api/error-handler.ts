import type { ErrorRequestHandler, RequestHandler } from "express";
import { AppError, ERROR_CODES } from "../core/errors";
import type { Logger } from "../logging/logger";
import type { Envelope } from "./envelope";

/** Express body-parser failures carry a `type`; map the ones a client can cause. */
function fromBodyParser(err: unknown): AppError | undefined {
  const type = (err as { type?: unknown })?.type;
  if (type === "entity.parse.failed") return new AppError("invalid_request", { message: "The body is not valid JSON" });
  if (type === "entity.too.large") return new AppError("payload_too_large");
  if (type === "encoding.unsupported" || type === "charset.unsupported") return new AppError("unsupported_media_type");
  return undefined;
}

/**
 * The one mapper from errors to HTTP: status, envelope and stable code. Unknown errors are
 * logged with their cause and answered with fixed text plus the request id: no internals leak.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const appError = err instanceof AppError ? err : fromBodyParser(err);
    const requestId = res.getHeader("x-request-id");
    if (appError) {
      if (appError.status >= 500) logger.warn({ err: appError.cause ?? appError, errorCode: appError.code, requestId }, appError.message);
      for (const [name, value] of Object.entries(appError.headers)) res.setHeader(name, value);
      const body: Envelope<Record<string, unknown>> = {
        success: false,
        message: appError.message,
        data: { code: appError.code, ...appError.data },
      };
      res.status(appError.status).json(body);
      return;
    }
    logger.error({ err, requestId, method: req.method, route: req.route?.path }, "unhandled error");
    const body: Envelope<Record<string, unknown>> = {
      success: false,
      message: ERROR_CODES.internal_error.message,
      data: { code: "internal_error", requestId },
    };
    if (!res.headersSent) res.status(500).json(body);
  };
}

export const notFoundHandler: RequestHandler = (_req, _res, next) => next(new AppError("route_not_found"));
