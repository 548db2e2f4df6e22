import type { ErrorRequestHandler, RequestHandler } from "express";
import { AppError, ERROR_CODES } from "../core/errors";
import type { Logger } from "../logging/logger";
import type { Envelope } from "./envelope";

/**
 * Body-parser failures are http-errors: a 4xx status with `expose` set means the client sent a
 * body that cannot be read (bad JSON, too large, a corrupt gzip or brotli stream, a body shorter
 * than its Content-Length, an aborted upload). `type` tells some apart.
 */
function fromBodyParser(err: unknown): AppError | undefined {
  const e = err as { type?: unknown; status?: unknown; expose?: unknown } | undefined;
  if (e?.type === "entity.parse.failed") return new AppError("invalid_request", { message: "The body is not valid JSON" });
  if (e?.type === "entity.too.large") return new AppError("payload_too_large");
  if (e?.type === "encoding.unsupported" || e?.type === "charset.unsupported") return new AppError("unsupported_media_type");
  if (e?.expose === true && typeof e.status === "number" && e.status >= 400 && e.status < 500) {
    return new AppError("invalid_request", { message: "The body could not be read" });
  }
  return undefined;
}

/** One line, no stack: what the client sent and why it was refused. */
function describeBodyError(err: unknown): { type?: string; reason: string } {
  const e = err as { type?: unknown; message?: unknown };
  return { type: typeof e?.type === "string" ? e.type : undefined, reason: typeof e?.message === "string" ? e.message : String(err) };
}

/**
 * The one mapper from errors to HTTP: status, envelope and stable code. Unknown errors are
 * logged with their cause and answered with fixed text plus the request id: no internals leak.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const bodyError = err instanceof AppError ? undefined : fromBodyParser(err);
    const appError = err instanceof AppError ? err : bodyError;
    const requestId = res.getHeader("x-request-id");
    if (bodyError) logger.info({ requestId, errorCode: bodyError.code, ...describeBodyError(err) }, "request body refused");
    if (appError) {
      if (appError.status >= 500) logger.warn({ err: appError.cause ?? appError, errorCode: appError.code, requestId }, appError.message);
      for (const [name, value] of Object.entries(appError.headers)) res.setHeader(name, value);
      const body: Envelope<Record<string, unknown>> = {
        success: false,
        message: appError.message,
        data: { code: appError.code, ...appError.data },
      };
      if (!res.headersSent) res.status(appError.status).json(body);
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
