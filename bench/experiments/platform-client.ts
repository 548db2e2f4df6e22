/**
 * Experiment (issue 56, "the platform call's HTTP client and keep-alive"): the client CPU of one
 * code2session-shaped call (GET with a query, a ~100-byte JSON answer) made by the server's own
 * platform client (undici's dispatch API on a keep-alive Agent: src/platforms/shared/http-json.ts)
 * beside global fetch (undici's fetch), node:http with a keep-alive agent, and node:http without
 * keep-alive (a handshake per call). The platform is a node:http server in a child process, so its
 * CPU is not counted. `node --import tsx bench/experiments/platform-client.ts` (C=concurrency, N=calls).
 */
import { fork } from "node:child_process";
import http from "node:http";
import { callPlatformApi } from "../../src/platforms/shared/http-json";

const CONCURRENCY = Number(process.env.C ?? 20);
const CALLS = Number(process.env.N ?? 20_000);
const ANSWER = JSON.stringify({ openid: "oPlayer0123456789abcdefghij", session_key: "c2Vzc2lvbi1rZXktb2YtMjQtYnl0", unionid: "oUnion0123456789abcdefghijk", errcode: 0, errmsg: "ok" });

if (process.argv[2] === "platform") {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(ANSWER) });
    res.end(ANSWER);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => process.send!((server.address() as { port: number }).port));
} else {
  void main();
}

async function main() {
  const child = fork(__filename, ["platform"], { execArgv: process.execArgv });
  const port = await new Promise<number>((resolve) => child.once("message", (m) => resolve(m as number)));
  const base = `http://127.0.0.1:${port}`;
  const path = "/sns/jscode2session?appid=wx0123456789abcdef&secret=0123456789abcdef0123456789abcdef&js_code=code0123456789&grant_type=authorization_code";
  const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const viaHttp = (agent: http.Agent | false) => () =>
    new Promise<unknown>((resolve, reject) => {
      http
        .get(`${base}${path}`, { agent, headers: { accept: "application/json" } }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString("utf8"))));
        })
        .on("error", reject);
    });
  const deps = { settings: { appId: "", appSecret: "", apiBaseUrl: base, extra: {} }, timeoutMs: 5000, busyRetries: 0, logger: undefined as never };
  const clients: Record<string, () => Promise<unknown>> = {
    "server's client (undici dispatch, keep-alive)": () => callPlatformApi("wechat", deps, { method: "GET", path: "/sns/jscode2session", query: { appid: "wx0123456789abcdef", secret: "0123456789abcdef0123456789abcdef", js_code: "code0123456789", grant_type: "authorization_code" }, isBusy: () => false }),
    "global fetch (undici fetch)": async () => (await fetch(`${base}${path}`, { headers: { accept: "application/json" } })).json(),
    "node:http, keep-alive agent": viaHttp(keepAlive),
    "node:http, no keep-alive": viaHttp(false),
  };
  for (let rep = 0; rep < 3; rep++) {
    for (const [label, call] of Object.entries(clients)) {
      const calls = label.includes("no keep-alive") ? CALLS / 4 : CALLS;
      const cpu = process.cpuUsage();
      const started = process.hrtime.bigint();
      let left = calls;
      await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
        while (left-- > 0) await call();
      }));
      const used = process.cpuUsage(cpu);
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      console.log(`${label}: ${((used.user + used.system) / calls).toFixed(1)} µs client CPU per call, ${((calls / wallMs) * 1000).toFixed(0)} calls/s`);
    }
  }
  keepAlive.destroy();
  child.kill();
  process.exit(0);
}
