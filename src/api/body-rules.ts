/**
 * How `/api` reads a request body: JSON only, up to a limit, parsed by Express's JSON parser; a body
 * in another type is 415. One reader per limit, shared by the `/api` router and the hot routes that
 * take a body (hot-routes.ts), so both paths refuse the same bodies the same way.
 */
import express, { type Request, type RequestHandler } from "express";
import { AppError } from "../core/errors";

/** The limit of every JSON body under `/api` but saved objects (SAVES_MAX_REQUEST_BYTES). */
export const API_JSON_LIMIT = "16kb";

/** Reads the body as JSON (`req.body`) with `limit`, or refuses it: 413, 415, or 400 for text that is not JSON. */
export function jsonBodyReader(limit: string | number): RequestHandler {
  const parse = express.json({ limit, strict: true });
  return (req, res, next) => {
    if (req.is("application/json") || !mayHaveBody(req)) return parse(req, res, next);
    // A body in another type would be read as none and refused as a validation error: say what is
    // wrong. A chunked body's length shows only once read: zero bytes in chunks is no body either.
    if (declaredLength(req) !== undefined) return next(new AppError("unsupported_media_type"));
    chunkedBodyIsEmpty(req).then(
      (empty) => (empty ? parse(req, res, next) : next(new AppError("unsupported_media_type"))),
      (err: unknown) => next(err),
    );
  };
}

/** A body may be coming: chunked, or a non-zero length (an empty body of any type is no body). */
function mayHaveBody(req: Request): boolean {
  return req.headers["transfer-encoding"] !== undefined || (declaredLength(req) ?? "0") !== "0";
}

/** The Content-Length of a body that states it, unless chunked (Node gives chunking precedence, as RFC 9112 says). */
function declaredLength(req: Request): string | undefined {
  return req.headers["transfer-encoding"] === undefined ? req.headers["content-length"] : undefined;
}

/**
 * Reads a chunked body up to its first byte or its end: true when it ended empty (then the request
 * is finished and the JSON parser passes it by as bodiless). A body that has bytes is left unread:
 * it is refused, and Node discards the rest.
 */
function chunkedBodyIsEmpty(req: Request): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const settle = (outcome: () => void) => {
      req.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      if (chunk.length === 0) return;
      req.pause();
      settle(() => resolve(false));
    };
    const onEnd = () => settle(() => resolve(true));
    // The client went away mid-body: the error handler's "body could not be read" (a 4xx nobody reads).
    const unreadable = () => Object.assign(new Error("request aborted"), { type: "request.aborted", status: 400, expose: true });
    const onError = () => settle(() => reject(unreadable()));
    const onClose = () => settle(() => reject(unreadable()));
    req.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
}
