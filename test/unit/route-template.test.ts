/**
 * The router's route table read for metrics, logs and OPTIONS answers: a path whose parameter is not
 * valid percent-encoding matches no route instead of throwing (it threw in the request's `finish`
 * listener, where nothing caught it and the process shut down), and the router's own refusal of such
 * a path maps to 400 invalid_request, not 500.
 */
import assert from "node:assert/strict";
import { Router } from "express";
import { allowedMethods } from "../../src/api/allowed-methods";
import { errorHandler } from "../../src/api/error-handler";
import { routeTemplateOf } from "../../src/api/route-template";
import { createLogger } from "../../src/logging/logger";

function api(): Router {
  const inner = Router();
  inner.get("/orders/:orderId", () => undefined);
  inner.delete("/orders/:orderId", () => undefined);
  const outer = Router();
  outer.use("/payments", inner);
  return outer;
}

describe("route table lookups on malformed paths", () => {
  it("finds the template of a well-formed path", () => {
    assert.equal(routeTemplateOf(api(), "GET", "/payments/orders/abc"), "/payments/orders/:orderId");
    assert.deepEqual(allowedMethods(api(), "/payments/orders/abc").sort(), ["DELETE", "GET", "HEAD"]);
  });

  for (const bad of ["%ZZ", "%", "%E0%A4%A", "%C0%AF"]) {
    it(`matches no route for /payments/orders/${bad} instead of throwing`, () => {
      assert.equal(routeTemplateOf(api(), "GET", `/payments/orders/${bad}`), undefined);
      assert.deepEqual(allowedMethods(api(), `/payments/orders/${bad}`), []);
    });
  }

  it("maps the router's URIError to 400 invalid_request", () => {
    let status = 0;
    let body: any;
    const res = {
      headersSent: false,
      getHeader: () => "req-1",
      setHeader: () => undefined,
      status(code: number) {
        status = code;
        return this;
      },
      json(value: unknown) {
        body = value;
      },
    };
    const err = Object.assign(new URIError("Failed to decode param '%ZZ'"), { status: 400 });
    errorHandler(createLogger({ level: "silent" }))(err, { method: "GET" } as any, res as any, () => undefined);
    assert.equal(status, 400);
    assert.deepEqual(body, { success: false, message: "The path is not valid percent-encoding", data: { code: "invalid_request" } });
  });
});
