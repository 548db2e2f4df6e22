import type { NextFunction, Request, RequestHandler, Response } from "express";

/**
 * The few routes every player calls (login, /users/me, the cached platform token) looked up by
 * exact path before the general router: Express 5 otherwise walks every router mounted ahead of
 * them and runs each layer's path matcher (a sixth of a /users/me request's CPU). The same handler
 * functions are also mounted in their routers as usual, so a path the table does not hold exactly
 * (another case, a trailing slash, another method) gets the same answer from the router; the
 * table only skips the walk. GET only: HEAD and OPTIONS are refused further down, as on every route.
 */
export class HotRoutes {
  private readonly table = new Map<string, readonly RequestHandler[]>();

  /** `path` is the full path under `/api`; `handlers` are the same functions the router mounts. */
  get(path: string, ...handlers: RequestHandler[]): void {
    if (this.table.has(path)) throw new Error(`hot route ${path} registered twice`);
    this.table.set(path, handlers);
  }

  /** The middleware that serves the table; whatever it does not hold goes on to the general router. */
  middleware(): RequestHandler {
    return (req, res, next) => {
      if (req.method !== "GET") return next();
      const handlers = this.table.get(req.path);
      if (!handlers) return next();
      runChain(handlers, 0, req, res, next);
    };
  }
}

/** Runs handlers in order as a route would: next() passes on, next(err) or a rejection ends in the error handler. The last one answers. */
function runChain(handlers: readonly RequestHandler[], index: number, req: Request, res: Response, done: NextFunction): void {
  const handler = handlers[index]!;
  const next: NextFunction = (err?: unknown) => {
    if (err !== undefined && err !== null) return done(err);
    if (index + 1 < handlers.length) return runChain(handlers, index + 1, req, res, done);
    // Passing on would reach the general router, which would run this same route again.
    done(new Error(`hot route ${req.path} passed the request on instead of answering`));
  };
  try {
    const result: unknown = handler(req, res, next);
    if (result instanceof Promise) result.catch((err: unknown) => next(err ?? new Error("rejected promise")));
  } catch (err) {
    next(err);
  }
}
