/**
 * Requests and responses born with the Express app's prototypes (src/server/app-prototypes.ts): a
 * request to the server has them from its first moment (so Express's and the hot front's
 * Object.setPrototypeOf find them in place), keeps node's own fields and Express's accessors, and a
 * server made with classes of its own keeps them.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { bearWithAppPrototypes } from "../../src/server/app-prototypes";

describe("requests born with the app's prototypes", () => {
  it("a request and its response have the app's prototypes when the listener first sees them, and both still work as node's", async () => {
    const app = express();
    app.set("query parser", "simple");
    const seen: unknown[] = [];
    const server = http.createServer((req, res) => {
      seen.push(Object.getPrototypeOf(req) === app.request, Object.getPrototypeOf(res) === app.response, req instanceof http.IncomingMessage, res instanceof http.ServerResponse);
      const request = req as express.Request;
      seen.push(request.query.a, request.method, request.headers["x-test"]);
      res.setHeader("content-type", "text/plain");
      res.end("ok");
    });
    assert.equal(bearWithAppPrototypes(server, app), true);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/x?a=1`, { headers: { "x-test": "yes" } });
      assert.deepEqual([answer.status, await answer.text()], [200, "ok"]);
      assert.deepEqual(seen, [true, true, true, true, "1", "GET", "yes"]);
    } finally {
      server.close();
    }
  });

  it("leaves a server made with request classes of its own as it is", () => {
    class Own extends http.IncomingMessage {}
    const server = http.createServer({ IncomingMessage: Own });
    assert.equal(bearWithAppPrototypes(server, express()), false);
  });
});
