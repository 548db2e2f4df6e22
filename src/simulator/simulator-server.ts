/**
 * A local stand-in for the WeChat and Douyin mini-game server APIs, served by one node:http server
 * at the platforms' real paths (they do not collide). Behaviour and wire text: see codes.ts.
 *
 * Like the real platforms every answer is HTTP 200, errors included; only an unknown route gets a
 * 404. Two extra routes let a test in another process read and reset the upstream-call counters:
 * `GET /__simulator/stats` and `POST /__simulator/reset`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import * as douyin from "./douyin";
import { JSON_TYPE, MALFORMED_BODY, SimulatorState, type Platform, type SimReply, type SimRequest, type SimulatorApp } from "./state";
import * as wechat from "./wechat";

export type { SimulatorApp } from "./state";

export interface SimulatorOptions {
  host?: string;
  port?: number;
  apps?: SimulatorApp[];
  /** ms clock, so tests can expire codes and tokens without waiting. */
  now?: () => number;
}

export const DEFAULT_SIMULATOR_APPS: SimulatorApp[] = [
  { platform: "wechat", appId: "wx_simulator_app", appSecret: "simulator-wechat-secret" },
  { platform: "douyin", appId: "tt_simulator_app", appSecret: "simulator-douyin-secret" },
];

export interface SimulatorStats {
  code2session: { wechat: number; douyin: number };
  accessToken: { wechat: number; douyin: number };
}

export interface RunningSimulator {
  /** e.g. http://127.0.0.1:41234, without a trailing slash. */
  url: string;
  /** Upstream calls served: every request to those endpoints, success or error. */
  stats(): SimulatorStats;
  resetStats(): void;
  /** Also drops keep-alive connections, so a pooled client cannot hold the server open. */
  close(): Promise<void>;
}

interface Route {
  counter: { kind: keyof SimulatorStats; platform: Platform };
  handle(req: SimRequest, state: SimulatorState): SimReply;
}

const ROUTES: Record<string, Route> = {
  "GET /sns/jscode2session": { counter: { kind: "code2session", platform: "wechat" }, handle: wechat.code2Session },
  "GET /cgi-bin/token": { counter: { kind: "accessToken", platform: "wechat" }, handle: wechat.token },
  "POST /cgi-bin/stable_token": { counter: { kind: "accessToken", platform: "wechat" }, handle: wechat.stableToken },
  "GET /mgplatform/api/apps/jscode2session": { counter: { kind: "code2session", platform: "douyin" }, handle: douyin.code2Session },
  "POST /mgplatform/api/apps/v2/token": { counter: { kind: "accessToken", platform: "douyin" }, handle: douyin.token },
  "POST /mgplatform/api/apps/stable_token": { counter: { kind: "accessToken", platform: "douyin" }, handle: douyin.stableToken },
};

// Real request bodies are a few hundred bytes; anything far larger is treated as malformed.
const MAX_BODY_BYTES = 64 * 1024;

const zeroStats = (): SimulatorStats => ({ code2session: { wechat: 0, douyin: 0 }, accessToken: { wechat: 0, douyin: 0 } });

function readBody(req: http.IncomingMessage): Promise<SimRequest["body"]> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on("end", () => {
      if (size > MAX_BODY_BYTES) return resolve(MALFORMED_BODY);
      try {
        const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        const isObject = parsed !== null && typeof parsed === "object" && !Array.isArray(parsed);
        resolve(isObject ? (parsed as Record<string, unknown>) : MALFORMED_BODY);
      } catch {
        resolve(MALFORMED_BODY);
      }
    });
    req.on("error", () => resolve(MALFORMED_BODY));
  });
}

function send(res: http.ServerResponse, status: number, reply: SimReply): void {
  const payload = JSON.stringify(reply.body);
  res.writeHead(status, { "content-type": reply.contentType, "content-length": Buffer.byteLength(payload) });
  res.end(payload);
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const host = options.host ?? "127.0.0.1";
  const state = new SimulatorState(options.apps ?? DEFAULT_SIMULATOR_APPS, options.now ?? Date.now);
  let counters = zeroStats();
  const stats = (): SimulatorStats => ({ code2session: { ...counters.code2session }, accessToken: { ...counters.accessToken } });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://simulator.invalid");
    const routeKey = `${req.method} ${url.pathname}`;
    if (routeKey === "GET /__simulator/stats") return send(res, 200, { contentType: JSON_TYPE, body: stats() });
    if (routeKey === "POST /__simulator/reset") {
      req.resume();
      counters = zeroStats();
      return send(res, 200, { contentType: JSON_TYPE, body: stats() });
    }
    const route = ROUTES[routeKey];
    if (!route) {
      req.resume();
      return send(res, 404, { contentType: JSON_TYPE, body: { errcode: 404, errmsg: `no simulator route for ${routeKey}` } });
    }
    counters[route.counter.kind][route.counter.platform] += 1;
    let body: SimRequest["body"];
    if (req.method === "POST") body = await readBody(req);
    else req.resume();
    send(res, 200, route.handle({ query: url.searchParams, body }, state));
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      // A bug in a handler must not take the simulator down with it.
      if (!res.headersSent) send(res, 500, { contentType: JSON_TYPE, body: { errcode: -1, errmsg: `simulator error: ${String(err)}` } });
      else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(":") ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}`,
    stats,
    resetStats: () => {
      counters = zeroStats();
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        if (!server.listening) return resolve();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
