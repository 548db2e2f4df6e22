import type { NextFunction, Request, RequestHandler, Response } from "express";

/** Called as a hot route's request starts, with the route's full path (its template: the table holds exact paths). */
export type HotRequestStart = (req: Request, res: Response, route: string) => void;

/** One entry of the table: the route's label (its full path) and the handlers that answer it, in order. */
export interface HotRoute {
  readonly route: string;
  readonly handlers: readonly RequestHandler[];
}

/**
 * The few routes every player calls (login, /users/me, the cached platform token, refresh) looked
 * up by method and exact path. The server's node:http front (src/server/hot-front.ts) serves them
 * before Express is entered; with the front off (HTTP_HOT_FRONT=false), the same table is the
 * first middleware of the app after the edge rules, which skips the `/api` mount and the walk
 * through every router mounted ahead of the route. The same handler functions are also mounted in
 * their routers as usual, so a path the table does not hold exactly (another case, a trailing
 * slash, another method) gets the same answer from the router; the table only skips the walk.
 * GET and POST only: HEAD and OPTIONS are refused further down, as on every route. A POST's body is
 * read first by `readBody`, the reader of every `/api` body. `onStart` does for a hot request what
 * `/api`'s request context does for the rest.
 */
export class HotRoutes {
  /** By full path, which is also the route's label: the table holds exact paths. */
  private readonly gets = new Map<string, HotRoute>();
  private readonly posts = new Map<string, HotRoute>();

  constructor(
    /** Where the routers are mounted (`/api`): registered paths are relative to it, as in the routers. */
    private readonly base: string,
    /** How a POST's JSON body is read (body-rules.ts), before its handlers. */
    private readonly readBody: RequestHandler,
    private readonly onStart?: HotRequestStart,
  ) {}

  /** `path` is the path under the base; `handlers` are the same functions the router mounts. */
  get(path: string, ...handlers: RequestHandler[]): void {
    this.add(this.gets, path, handlers);
  }

  /** As `get`, for a POST with a JSON body. */
  post(path: string, ...handlers: RequestHandler[]): void {
    this.add(this.posts, path, [this.readBody, ...handlers]);
  }

  /** The entry for a method and an exact path (no query), if the table holds it. */
  find(method: string | undefined, path: string): HotRoute | undefined {
    if (method === "GET") return this.gets.get(path);
    if (method === "POST") return this.posts.get(path);
    return undefined;
  }

  /** Starts the request context and runs the entry's handlers; `done(err)` gets what they fail with. */
  serve(entry: HotRoute, req: Request, res: Response, done: NextFunction): void {
    this.onStart?.(req, res, entry.route);
    runChain(entry.handlers, 0, req, res, done);
  }

  /** The table as Express middleware, mounted at the app's root; whatever it does not hold goes on to the general router. */
  middleware(): RequestHandler {
    return (req, res, next) => {
      const entry = this.find(req.method, req.path);
      if (!entry) return next();
      this.serve(entry, req, res, next);
    };
  }

  private add(table: Map<string, HotRoute>, path: string, handlers: RequestHandler[]): void {
    const route = this.base + path;
    if (table.has(route)) throw new Error(`hot route ${route} registered twice`);
    table.set(route, { route, handlers });
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
