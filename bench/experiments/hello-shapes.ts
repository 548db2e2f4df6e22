/**
 * Experiment (issue 56, what remains by profile): how far below the bare node:http hello a server
 * falls from what every hot route's answer takes before any of its own work, one layer at a time.
 * Each variant is a node:http server in a child process answering the access token's answer
 * (same body size); autocannon (50 connections) loads each in turn, and the server's CPU per
 * request is read from /proc. Variants, each adding to the one before:
 *   bare        the bench's node:http hello (a 55-byte body, two headers)
 *   answer      the route's answer: a 300-byte envelope JSON.stringify'd per request, its headers
 *   context     + the request scope (AsyncLocalStorage.run), a request id (randomUUID) and a
 *               `finish` listener timing the request into a prom-client histogram
 *   adopt       + the hot front's adopt: Express's request/response prototypes set on req and res
 *               per request (Object.setPrototypeOf, what Express's own application handler does too)
 *   born        context, with req and res born of classes whose prototypes already lead to Express's
 *               (http.createServer's IncomingMessage/ServerResponse options): the same methods, no
 *               prototype changed per request
 *   same        context, with req and res born with Express's prototypes themselves (constructors whose
 *               `prototype` is express.request / express.response), then adopt's Object.setPrototypeOf
 *               as the hot front and Express do it: the same prototype again, which changes nothing
 * `node --import tsx bench/experiments/hello-shapes.ts` (D=seconds per variant, default 8).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { fork } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import { runHttpLoad } from "../lib/http-load";

const VARIANTS = ["bare", "answer", "context", "adopt", "born", "same"] as const;
type Variant = (typeof VARIANTS)[number];
const SECONDS = Number(process.env.D ?? 8);

if (process.argv[2] === "serve") serve(process.argv[3] as Variant);
else void main();

function serve(variant: Variant): void {
  const hello = Buffer.from(JSON.stringify({ success: true, message: "ok", data: { hello: "world" } }));
  const token = crypto.randomBytes(96).toString("base64url");
  const scopes = new AsyncLocalStorage<{ method?: string; path: string }>();
  // Loaded only where used, as the server does.
  const express = variant === "adopt" || variant === "born" || variant === "same" ? (require("express") as typeof import("express"))() : undefined;
  const client = variant !== "bare" && variant !== "answer" ? (require("prom-client") as typeof import("prom-client")) : undefined;
  const histogram = client ? new client.Histogram({ name: "http_request_duration_seconds", help: "h", labelNames: ["method", "route", "status"] }) : undefined;
  const answer = (res: http.ServerResponse) => {
    const json = JSON.stringify({ success: true, message: "OK", data: { access_token: token, expires_in: 7012 } });
    res.statusCode = 200;
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    res.setHeader("Content-Length", Buffer.byteLength(json));
    res.end(json);
  };
  class Request extends http.IncomingMessage {}
  class Response extends http.ServerResponse {}
  if (variant === "born") {
    Object.setPrototypeOf(Request.prototype, express!.request);
    Object.setPrototypeOf(Response.prototype, express!.response);
  }
  const classes = variant === "born" ? { IncomingMessage: Request, ServerResponse: Response } : variant === "same" ? appBorn(express!) : {};
  const server = http.createServer(classes as http.ServerOptions, (req, res) => {
    if (variant === "bare") {
      res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": hello.length });
      res.end(hello);
      return;
    }
    if (variant === "answer") return answer(res);
    scopes.run({ method: req.method, path: (req.url ?? "").split("?")[0] }, () => {
      if (variant === "adopt" || variant === "same") {
        Object.setPrototypeOf(req, express!.request);
        Object.setPrototypeOf(res, express!.response);
      }
      res.setHeader("x-request-id", crypto.randomUUID());
      const started = process.hrtime.bigint();
      res.on("finish", () => histogram!.observe({ method: req.method, route: "/api/minigame/wechat/access_token", status: res.statusCode }, Number(process.hrtime.bigint() - started) / 1e9));
      answer(res);
    });
  });
  server.listen(0, "127.0.0.1", () => process.send!((server.address() as { port: number }).port));
}

/** Constructors of node's request and response whose instances have Express's prototypes from birth. */
function appBorn(app: import("express").Express): http.ServerOptions {
  function AppRequest(this: unknown, ...args: unknown[]) {
    return Reflect.construct(http.IncomingMessage, args, AppRequest);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: unknown, ...args: unknown[]) {
    return Reflect.construct(http.ServerResponse, args, AppResponse);
  }
  AppResponse.prototype = app.response;
  return { IncomingMessage: AppRequest as never, ServerResponse: AppResponse as never };
}

/** utime + stime of a process, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function main() {
  const rows: string[] = [];
  for (let rep = 0; rep < 2; rep++) {
    for (const variant of VARIANTS) {
      const child = fork(__filename, ["serve", variant], { execArgv: process.execArgv });
      const port = await new Promise<number>((resolve) => child.once("message", (m) => resolve(m as number)));
      const load = { baseUrl: `http://127.0.0.1:${port}`, path: "/api/minigame/wechat/access_token", connections: 50, maxRequests: 10_000_000 };
      await runHttpLoad({ ...load, durationSec: 2 });
      const before = cpuMs(child.pid!);
      const measured = await runHttpLoad({ ...load, durationSec: SECONDS });
      const used = cpuMs(child.pid!) - before;
      rows.push(`${variant.padEnd(8)} ${measured.reqPerSec.toFixed(0).padStart(7)} req/s  ${((used * 1000) / measured.ok).toFixed(1).padStart(6)} µs server CPU per request`);
      process.stdout.write(`${rows[rows.length - 1]}\n`);
      child.kill();
    }
  }
}
