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

/**
 * The router's own refusal of a path whose parameters are not valid percent-encoding (`%ZZ`, a lone
 * `%`, a truncated or overlong UTF-8 sequence): a URIError with status 400. The client's mistake.
 */
function fromMalformedPath(err: unknown): AppError | undefined {
  if (!(err instanceof URIError)) return undefined;
  return new AppError("invalid_request", { message: "The path is not valid percent-encoding" });
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
    const appError = err instanceof AppError ? err : (bodyError ?? fromMalformedPath(err));
    const requestId = res.getHeader("x-request-id");
    if (bodyError) logger.info({ requestId, errorCode: bodyError.code, ...describeBodyError(err) }, "request body refused");
    if (appError) {
      logFailure(logger, appError, requestId);
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

/** Public detail of a failure worth a log line: which platform, its own error number, why. */
const LOGGED_FIELDS = ["platform", "reason", "errcode", "errmsg", "err_no", "err_tips", "error"];

/**
 * One line per failure an operator should see: our 5xx answers and every platform refusal. Expected
 * failures carry no stack; the platform's error number is not a secret and is logged as `errcode`
 * (a field named `code` would be redacted: login codes are). Secrets never sit in these fields.
 */
function logFailure(logger: Logger, appError: AppError, requestId: unknown): void {
  if (appError.status < 500 && !appError.code.startsWith("platform_")) return;
  const detail: Record<string, unknown> = { event: "request_failed", errorCode: appError.code, requestId };
  for (const field of LOGGED_FIELDS) {
    const value = appError.data[field];
    if (value !== undefined && value !== "") detail[field] = value;
  }
  const cause = describeCause(appError.cause);
  if (cause) detail.cause = cause;
  // Our own credentials being rejected is the operator's problem, not the player's.
  if (appError.code === "platform_misconfigured") logger.error(detail, appError.message);
  else logger.warn(detail, appError.message);
}

function describeCause(cause: unknown): string | undefined {
  if (cause === undefined || cause === null) return undefined;
  if (!(cause instanceof Error)) return String(cause);
  const code = (cause as { code?: unknown }).code;
  return [cause.name, typeof code === "string" ? code : undefined, cause.message].filter(Boolean).join(": ");
}

export const notFoundHandler: RequestHandler = (_req, _res, next) => next(new AppError("route_not_found"));
