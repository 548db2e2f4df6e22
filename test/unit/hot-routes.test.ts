import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import express, { Router, type ErrorRequestHandler, type RequestHandler } from "express";
import { HotRoutes, type HotRequestStart } from "../../src/api/hot-routes";

const noBody: RequestHandler = (_req, _res, next) => next();

/** An app as the service builds it: the hot table at the front, then /api with a router mounted as usual, the not-found and error handlers last. */
function appWith(register: (hot: HotRoutes, users: Router) => void, onStart?: HotRequestStart): express.Express {
  const app = express();
  const api = Router();
  const hot = new HotRoutes("/api", noBody, onStart);
  app.use(hot.middleware());
  const users = Router();
  register(hot, users);
  api.use("/users", users);
  api.use((_req, res) => void res.status(404).json({ where: "not found" }));
  const onError: ErrorRequestHandler = (err: Error, _req, res, _next) => void res.status(500).json({ error: err.message });
  api.use(onError);
  app.use("/api", api);
  // The app's own error handler, as the service has at its end: a hot chain's errors land there.
  app.use(onError);
  return app;
}

async function call(app: express.Express, method: string, path: string): Promise<{ status: number; body: string }> {
  const server = http.createServer(app).listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { method });
    return { status: res.status, body: await res.text() };
  } finally {
    server.close();
  }
}

describe("HotRoutes", () => {
  let runs: string[];
  const guard: RequestHandler = (req, _res, next) => {
    runs.push("guard");
    next(req.headers["x-deny"] ? new Error("denied") : undefined);
  };
  const me: RequestHandler = async (_req, res) => {
    runs.push("me");
    res.json({ me: true });
  };
  const register = (hot: HotRoutes, users: Router) => {
    users.use(guard);
    users.get("/me", me);
    hot.get("/users/me", guard, me);
  };

  beforeEach(() => {
    runs = [];
  });

  it("answers an exact GET from the table, running the chain once in order", async () => {
    const res = await call(appWith(register), "GET", "/api/users/me?x=1");
    assert.equal(res.status, 200);
    assert.deepEqual(runs, ["guard", "me"]);
  });

  it("leaves other spellings and methods to the router, with the same handlers", async () => {
    const slash = await call(appWith(register), "GET", "/api/users/me/");
    assert.equal(slash.status, 200);
    assert.deepEqual(runs, ["guard", "me"]);
    runs = [];
    const post = await call(appWith(register), "POST", "/api/users/me");
    assert.equal(post.status, 404);
    assert.deepEqual(runs, ["guard"], "the router's own guard ran, the hot chain did not");
  });

  it("sends next(err) and rejections to the error handler, never on to the router", async () => {
    const app = appWith(register);
    const server = http.createServer(app).listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const denied = await fetch(`http://127.0.0.1:${port}/api/users/me`, { headers: { "x-deny": "1" } });
      assert.equal(denied.status, 500);
      assert.deepEqual(await denied.json(), { error: "denied" });
      assert.deepEqual(runs, ["guard"]);
    } finally {
      server.close();
    }

    runs = [];
    const rejecting = appWith((hot, users) => {
      const fails: RequestHandler = async () => {
        runs.push("fails");
        throw new Error("boom");
      };
      users.get("/me", fails);
      hot.get("/users/me", fails);
    });
    const res = await call(rejecting, "GET", "/api/users/me");
    assert.equal(res.status, 500);
    assert.match(res.body, /boom/);
    assert.deepEqual(runs, ["fails"]);
  });

  it("refuses a chain that passes the request on (the router would run the same route again)", async () => {
    const app = appWith((hot, users) => {
      const passes: RequestHandler = (_req, _res, next) => {
        runs.push("passes");
        next();
      };
      users.get("/me", passes);
      hot.get("/users/me", passes);
    });
    const res = await call(app, "GET", "/api/users/me");
    assert.equal(res.status, 500);
    assert.deepEqual(runs, ["passes"]);
  });

  it("starts each hot request with its full route, before the chain runs", async () => {
    const started: string[] = [];
    const app = appWith(register, (req, _res, route) => started.push(`${route} ${req.method} ${runs.length}`));
    const res = await call(app, "GET", "/api/users/me?code=secret");
    assert.equal(res.status, 200);
    assert.deepEqual(started, ["/api/users/me GET 0"], "the route is the template, never the URL with its query");
    await call(app, "GET", "/api/users/me/");
    assert.equal(started.length, 1, "a spelling the table does not hold is the router's, with its own request context");
  });

  it("reads a POST's body with the table's reader before its handlers, and holds each method apart", async () => {
    const order: string[] = [];
    const readBody: RequestHandler = (_req, _res, next) => {
      order.push("body");
      next();
    };
    const hot = new HotRoutes("/api", readBody);
    const refresh: RequestHandler = (_req, res) => {
      order.push("refresh");
      res.json({});
    };
    hot.post("/auth/refresh", refresh);
    assert.equal(hot.find("GET", "/api/auth/refresh"), undefined);
    assert.equal(hot.find("HEAD", "/api/auth/refresh"), undefined);
    const entry = hot.find("POST", "/api/auth/refresh");
    assert.deepEqual(entry?.route, "/api/auth/refresh");
    const app = express();
    app.use(hot.middleware());
    const res = await call(app, "POST", "/api/auth/refresh");
    assert.equal(res.status, 200);
    assert.deepEqual(order, ["body", "refresh"]);
  });

  it("refuses a path registered twice", () => {
    const hot = new HotRoutes("/api", noBody);
    hot.get("/users/me", me);
    assert.throws(() => hot.get("/users/me", me), /twice/);
  });
});
