import assert from "node:assert/strict";
import http from "node:http";
import type net from "node:net";
import { HttpDrain } from "../../src/http-drain";

describe("HttpDrain", () => {
  it("counts requests exactly and answers with Connection: close while draining, even routes that answer synchronously", async () => {
    // The app's listener is registered first, as Colyseus's is, and answers before returning.
    const server = http.createServer((_req, res) => res.end("ok"));
    const drain = new HttpDrain(server);
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on("uncaughtException", onUncaught);
    try {
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/`;
      const draining = drain.drain({ acceptWindowMs: 300, budgetMs: 5000 });
      const answers = await Promise.all(Array.from({ length: 10 }, () => fetch(url)));
      for (const answer of answers) assert.equal(answer.headers.get("connection"), "close");
      await Promise.all(answers.map((a) => a.text()));
      const started = Date.now();
      await draining;
      assert.equal(drain.inFlight, 0);
      assert.ok(Date.now() - started < 2000, "the drain did not wait for a leaked request");
      assert.deepEqual(uncaught, []);
    } finally {
      process.off("uncaughtException", onUncaught);
      server.close();
    }
  });
});
