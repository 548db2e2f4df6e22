/**
 * Our answer to `/matchmake/...` requests, in place of Colyseus 0.18's matchmaking route, which
 * trusts X-Real-IP / X-Forwarded-For as the client address, reflects any origin with credentials,
 * and leaves PUT/DELETE/PATCH/TRACE to the next handler.
 *
 * Same protocol otherwise: POST `/matchmake/<method>/<room>` with the join options as JSON, answered
 * 200 with the seat reservation, or, for a refused join, with the refusal's code as the HTTP status
 * and Colyseus's error shape `{code, error}` as the body (the 0.18 SDK raises it as a MatchMakeError
 * with that code). Our own refusals are alike: 405 (with Allow) for a method other than POST/OPTIONS,
 * 413 for a body above 16 KiB (refused before it is read or parsed), 400 for a body that is not a
 * JSON object or a URL that is not valid percent-encoding.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { getBearerToken, matchMaker } from "@colyseus/core";
import type { Logger } from "../logging/logger";
import { CorsPolicy } from "../net/cors-policy";
import { hasValidPercentEncoding } from "./express-edge";

/** Same limit as the API's JSON bodies. */
export const MAX_MATCHMAKE_BODY_BYTES = 16 * 1024;
const ALLOWED_METHODS = "POST, OPTIONS";

export interface MatchmakeHandlerOptions {
  clientIp: (req: IncomingMessage) => string;
  cors: CorsPolicy;
  logger: Logger;
  /** The transport's protocol, for the seat reservation (Colyseus's WebSocket transport names none). */
  protocol?: unknown;
  /** Every request that is not matchmaking: the Express app. */
  otherwise: (req: IncomingMessage, res: ServerResponse) => void;
}

/**
 * The server's request listener: matchmaking here, anything else to `otherwise`. Whatever fails in it
 * is answered here, never left to escape.
 */
export function matchmakeListener(options: MatchmakeHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handleMatchmake(req, res, options).catch((err: unknown) => {
      options.logger.error({ err, event: "matchmake_failed" }, "a matchmaking request failed unexpectedly");
      if (!res.headersSent && !res.destroyed) reply(res, 500, { "Content-Type": "application/json" }, JSON.stringify({ code: 500, error: "internal error" }));
      else res.destroy();
    });
  };
}

/** `/matchmake` or below it. Every HTTP request passes here first, so no per-request RegExp. */
function isMatchmakePath(path: string): boolean {
  const prefix = `/${matchMaker.controller.matchmakeRoute}`;
  return path.startsWith(prefix) && (path.length === prefix.length || path[prefix.length] === "/");
}

async function handleMatchmake(req: IncomingMessage, res: ServerResponse, options: MatchmakeHandlerOptions): Promise<void> {
  const path = (req.url ?? "").split("?")[0];
  if (!isMatchmakePath(path)) return options.otherwise(req, res);
  if (matchMaker.state === matchMaker.MatchMakerState.SHUTTING_DOWN) return reply(res, 503, {});
  const headers = options.cors.headersFor(req, ALLOWED_METHODS);
  if (req.method === "OPTIONS") return reply(res, 204, { ...headers, Allow: ALLOWED_METHODS });
  if (req.method !== "POST") return refuse(req, res, 405, "method not allowed", { ...headers, Allow: ALLOWED_METHODS });
  if (!hasValidPercentEncoding(req.url)) return refuse(req, res, 400, "the URL is not valid percent-encoding", headers);

  const body = await readBody(req, MAX_MATCHMAKE_BODY_BYTES);
  if (body === "too_large") {
    options.logger.info({ reason: "body_too_large" }, "matchmaking request refused");
    return refuse(req, res, 413, "request body too large", { ...headers, Connection: "close" });
  }
  if (body === "aborted") return;
  let clientOptions: unknown;
  try {
    clientOptions = body.length === 0 ? {} : JSON.parse(body.toString("utf8"));
  } catch {
    clientOptions = undefined;
  }
  if (clientOptions === null || typeof clientOptions !== "object" || Array.isArray(clientOptions)) {
    return refuse(req, res, 400, "the body must be a JSON object", headers);
  }

  const [method = "", roomName = ""] = path.split("/").slice(2);
  let answer: Record<string, unknown>;
  let status = 200;
  try {
    const reservation = await matchMaker.controller.invokeMethod(method, roomName, clientOptions, {
      token: getBearerToken(req.headers.authorization ?? ""),
      headers: requestHeaders(req),
      ip: options.clientIp(req),
      req,
    });
    answer = { ...reservation };
    if (options.protocol !== undefined) answer.protocol = options.protocol;
  } catch (e) {
    // As Colyseus 0.18 answers a refused join: the code as the status, {code, error} as the body.
    const err = e as { code?: unknown; message?: unknown };
    status = typeof err.code === "number" && err.code >= 400 && err.code <= 599 ? err.code : 500;
    answer = { code: err.code, error: err.message };
  }
  reply(res, status, { ...headers, "Content-Type": "application/json" }, JSON.stringify(answer));
}

/** The request's headers as the WHATWG Headers Colyseus 0.18 hands to onAuth. */
function requestHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}

function reply(res: ServerResponse, status: number, headers: OutgoingHttpHeaders, body?: string): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, headers);
  res.end(body);
}

/** A refusal in Colyseus's error shape; the rest of an unread body is not waited for. */
function refuse(req: IncomingMessage, res: ServerResponse, status: number, error: string, headers: OutgoingHttpHeaders): void {
  reply(res, status, { ...headers, "Content-Type": "application/json" }, JSON.stringify({ code: status, error }));
  // Drain what the client still sends, so it reads our answer instead of a reset connection.
  req.resume();
}

/** The body, or "too_large" as soon as the declared or received size passes `limit`. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | "too_large" | "aborted"> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve("too_large");
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off("data", onData);
        resolve("too_large");
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => resolve(Buffer.concat(chunks)));
    req.once("error", () => resolve("aborted"));
    req.once("close", () => resolve(req.complete ? Buffer.concat(chunks) : "aborted"));
  });
}
