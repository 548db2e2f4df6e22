import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import http from "node:http";
import type net from "node:net";
import { HttpDrain } from "../../src/server/http-drain";

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

  it("answers requests already in flight when the drain starts with Connection: close, so their keep-alive sockets are not reused", async () => {
    const server = http.createServer((_req, res) => setTimeout(() => res.end("ok"), 200));
    const drain = new HttpDrain(server);
    const agent = new http.Agent({ keepAlive: true });
    try {
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const port = (server.address() as net.AddressInfo).port;
      const answer = new Promise<http.IncomingMessage>((resolve, reject) => {
        http.get({ host: "127.0.0.1", port, path: "/", agent }, resolve).on("error", reject);
      });
      await new Promise((r) => setTimeout(r, 50));
      const draining = drain.drain({ acceptWindowMs: 0, budgetMs: 5000 });
      const res = await answer;
      res.resume();
      assert.equal(res.headers.connection, "close");
      await draining;
    } finally {
      agent.destroy();
      server.close();
    }
  });

  it("keeps accepting past the window while clients are still reconnecting, and stops once they are quiet", async () => {
    const server = http.createServer((_req, res) => res.end("ok"));
    const drain = new HttpDrain(server);
    try {
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const port = (server.address() as net.AddressInfo).port;
      // A client whose every answer says Connection: close comes back on a new connection each time.
      const get = () =>
        new Promise<number>((resolve) => {
          http.get({ host: "127.0.0.1", port, path: "/", agent: false }, (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode ?? 0));
          }).on("error", () => resolve(0));
        });
      const started = Date.now();
      // At least 400 ms, at most 800 ms: the client below reconnects for 600 ms, then goes quiet.
      const draining = drain.drain({ acceptWindowMs: 400, budgetMs: 5000 });
      const statuses: number[] = [];
      while (Date.now() - started < 600) {
        statuses.push(await get());
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.ok(statuses.length > 10 && statuses.every((s) => s === 200), `statuses: ${statuses.join(",")}`);
      await draining;
      assert.ok(Date.now() - started < 1500, "the drain stopped listening soon after the clients went quiet");
      assert.equal(await get(), 0, "a connection after the drain is refused");
    } finally {
      server.close();
    }
  });

  it("serves every connection the kernel already completed, though a busy process accepts them one per event-loop turn", async () => {
    const server = http.createServer((_req, res) => setTimeout(() => res.end("ok"), 5));
    const drain = new HttpDrain(server);
    // A loaded process: each turn of the loop takes 20 ms, and Node accepts one connection per turn.
    const busy = setInterval(() => {
      const until = Date.now() + 20;
      while (Date.now() < until);
    }, 0);
    try {
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const port = (server.address() as net.AddressInfo).port;
      // Another process, so its connections complete in the kernel whatever this loop is doing.
      const client = spawn(process.execPath, ["-e", BURST_CLIENT, String(port), "60"], { stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      client.stdout.setEncoding("utf8");
      const connected = new Promise<void>((resolve) => client.stdout.on("data", (chunk: string) => (out += chunk).includes("connected\n") && resolve()));
      const exited = new Promise<void>((resolve) => client.on("exit", () => resolve()));
      await connected;
      await drain.drain({ acceptWindowMs: 50, budgetMs: 20_000 });
      await exited;
      const statuses = JSON.parse(out.slice(out.indexOf("connected\n") + "connected\n".length)) as (number | string)[];
      assert.deepEqual(statuses.filter((s) => s !== 200), [], "every connection made before the drain was answered");
    } finally {
      clearInterval(busy);
      server.close();
    }
  });
});

/** Opens N connections at once, each sending a GET; prints "connected" once all are open, then every answer's status or error code. */
const BURST_CLIENT = `
const http = require("node:http");
const [port, n] = process.argv.slice(1).map(Number);
let open = 0;
const answers = Array.from({ length: n }, () => new Promise((resolve) => {
  const req = http.get({ host: "127.0.0.1", port, path: "/", agent: false }, (res) => { res.resume(); res.on("end", () => resolve(res.statusCode)); });
  req.on("socket", (socket) => socket.once("connect", () => ++open === n && process.stdout.write("connected\\n")));
  req.on("error", (err) => resolve(err.code || String(err)));
}));
Promise.all(answers).then((all) => process.stdout.write(JSON.stringify(all)));
`;
