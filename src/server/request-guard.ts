/**
 * No error thrown while serving one request ends the process. Express catches what its handlers
 * throw, but not what escapes elsewhere: a listener of a response's events (`finish`), a timer or
 * a promise a handler started and left, a throw in matchmaking or in a socket upgrade. In Node such
 * an error reaches `uncaughtException` (an unhandled rejection does too), where Colyseus shuts the
 * server down: one malformed request would take every player of the process with it.
 *
 * So every HTTP request and upgrade runs in a request scope (AsyncLocalStorage follows it through
 * callbacks, timers and promises), and the process-level handlers tell the two cases apart: an
 * error inside a scope is logged with its stack, its request answered 500 if it is still open, and
 * the process goes on; an error outside any scope (boot, a background task of the process itself)
 * keeps the previous behaviour: Colyseus's graceful shutdown, and pm2 starts the process again.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import crypto from "node:crypto";
import type http from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "../logging/logger";

interface RequestScope {
  method: string | undefined;
  /** The path without the query: login codes travel in the query string. */
  path: string;
  /** The HTTP answer still owed; absent for an upgrade, whose socket is ended instead. */
  res?: http.ServerResponse;
  socket?: Duplex;
}

const scopes = new AsyncLocalStorage<RequestScope>();

type Listener = (...args: any[]) => void;

/**
 * Runs every `request` and `upgrade` listener of `server` in a request scope, catching what they
 * throw synchronously. Call once the listeners are all in place (Colyseus and the drain wrap theirs first).
 */
export function guardRequests(server: http.Server, logger: Logger): void {
  wrapListeners(server, "request", logger, (req: http.IncomingMessage, res: http.ServerResponse) => scopeOf(req, { res }));
  wrapListeners(server, "upgrade", logger, (req: http.IncomingMessage, socket: Duplex) => scopeOf(req, { socket }));
}

function scopeOf(req: http.IncomingMessage, owed: Pick<RequestScope, "res" | "socket">): RequestScope {
  return { method: req.method, path: (req.url ?? "").split("?")[0].slice(0, 200), ...owed };
}

function wrapListeners(server: http.Server, event: "request" | "upgrade", logger: Logger, scopeFor: (...args: any[]) => RequestScope): void {
  const listeners = server.listeners(event) as Listener[];
  server.removeAllListeners(event);
  server.on(event, (...args: unknown[]) => {
    const scope = scopeFor(...args);
    scopes.run(scope, () => {
      for (const listener of listeners) {
        try {
          listener.apply(server, args);
        } catch (err) {
          failRequest(scope, err, logger);
          return;
        }
      }
    });
  });
}

/** Logs an error that escaped a request and closes what the request still owes its client. */
function failRequest(scope: RequestScope, err: unknown, logger: Logger): void {
  const requestId = scope.res?.getHeader("x-request-id") ?? crypto.randomUUID();
  logger.error({ err, requestId, method: scope.method, path: scope.path, event: "request_error_escaped" }, "an error escaped while serving a request; the process goes on");
  const { res, socket } = scope;
  if (res && !res.headersSent && !res.destroyed) {
    const body = JSON.stringify({ success: false, message: "Internal server error", data: { code: "internal_error", requestId } });
    res.writeHead(500, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body) });
    res.end(body);
  } else if (res && !res.writableEnded) {
    res.destroy();
  } else if (socket && !socket.destroyed) {
    socket.destroy();
  }
}

/**
 * Process-level handlers (the process entry installs them once the server listens): an uncaught
 * exception or unhandled rejection inside a request scope fails that request only; anything else
 * goes to the handlers that were there before (Colyseus's shutdown), or, with none, ends the
 * process as Node would.
 */
export function keepServingAfterRequestErrors(logger: Logger): void {
  const previous = process.listeners("uncaughtException");
  process.removeAllListeners("uncaughtException");
  process.on("uncaughtException", (err, origin) => {
    const scope = scopes.getStore();
    if (scope) return failRequest(scope, err, logger);
    if (previous.length === 0) {
      logger.fatal({ err, origin }, "uncaught exception outside any request");
      process.exit(1);
    }
    for (const listener of previous) listener(err, origin);
  });
  process.on("unhandledRejection", (reason) => {
    const scope = scopes.getStore();
    if (scope) return failRequest(scope, reason, logger);
    // What Node does without this handler (--unhandled-rejections=throw): an uncaught exception, outside any scope.
    throw reason;
  });
}
