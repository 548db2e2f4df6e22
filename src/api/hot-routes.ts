import type { NextFunction, Request, RequestHandler, Response } from "express";

/** Called as a hot route's request starts, with the route's full path (its template: the table holds exact paths). */
export type HotRequestStart = (req: Request, res: Response, route: string) => void;

/**
 * The few routes every player calls (login, /users/me, the cached platform token) looked up by
 * exact path at the front of the app, right after the edge rules: otherwise each request goes
 * through the `/api` mount (its path match, prefix trim and restore, a second Router.handle pass)
 * and then walks every router mounted ahead of the route, running each layer's path matcher. The
 * same handler functions are also mounted in their routers as usual, so a path the table does not
 * hold exactly (another case, a trailing slash, another method) gets the same answer from the
 * router; the table only skips the walk. GET only: HEAD and OPTIONS are refused further down, as
 * on every route. `onStart` does for a hot request what `/api`'s request context does for the rest.
 */
export class HotRoutes {
  /** By full path, which is also the route's label: the table holds exact paths. */
  private readonly table = new Map<string, readonly RequestHandler[]>();

  constructor(
    /** Where the routers are mounted (`/api`): registered paths are relative to it, as in the routers. */
    private readonly base: string,
    private readonly onStart?: HotRequestStart,
  ) {}

  /** `path` is the path under the base; `handlers` are the same functions the router mounts. */
  get(path: string, ...handlers: RequestHandler[]): void {
    const route = this.base + path;
    if (this.table.has(route)) throw new Error(`hot route ${route} registered twice`);
    this.table.set(route, handlers);
  }

  /** The middleware that serves the table, mounted at the app's root; whatever it does not hold goes on to the general router. */
  middleware(): RequestHandler {
    return (req, res, next) => {
      if (req.method !== "GET") return next();
      const route = req.path;
      const handlers = this.table.get(route);
      if (!handlers) return next();
      this.onStart?.(req, res, route);
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
