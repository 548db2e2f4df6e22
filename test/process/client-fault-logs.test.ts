/**
 * Client-caused failures are logged as one info/warn line without a stack; error level is kept
 * for our own faults. Checked on everything the real process writes (stdout and stderr), since
 * Colyseus logs through the console, not through our logger.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import WebSocket from "ws";
import { MAX_WS_PAYLOAD_BYTES } from "../../src/server/app.config";
import { TEST_JWT_SECRET } from "../support/app-harness";
import { startServerProcess, type ServerProcess } from "../support/server-process";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Opens a raw room socket and resolves with its close code. */
function closeCodeOf(url: string, send?: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on("error", () => undefined);
    if (send) ws.on("open", () => ws.send(send));
    ws.on("close", (code) => resolve(code));
    setTimeout(() => reject(new Error(`no close within 5 s: ${url}`)), 5000);
  });
}

/** Sends raw bytes as an HTTP request and closes the socket, as a client that gives up would. */
async function sendRaw(port: number, bytes: Buffer): Promise<void> {
  const socket = net.connect(port, "127.0.0.1");
  socket.on("error", () => undefined);
  await new Promise((resolve) => socket.once("connect", resolve));
  socket.write(bytes);
  await sleep(200);
  socket.destroy();
}

async function post(baseUrl: string, headers: Record<string, string>, body: Buffer) {
  const res = await fetch(`${baseUrl}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  return { status: res.status, body: (await res.json()) as any };
}

interface LogLine {
  level?: number;
  msg?: string;
}

describe("logs of client-caused failures", function () {
  this.timeout(60_000);
  let server: ServerProcess;
  let dir: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-logs-"));
    server = await startServerProcess({
      NODE_ENV: "test",
      JWT_SECRET: TEST_JWT_SECRET,
      SQLITE_PATH: path.join(dir, "users.sqlite"),
      LOG_LEVEL: "info",
    });
  });
  after(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("logs room connects without a valid seat, oversized room messages and unreadable bodies as one line each, below error level", async () => {
    const wsBase = server.baseUrl.replace("http", "ws");
    const login = await fetch(`${server.baseUrl}/api/minigame/wechat/login?jsCode=logs${Date.now()}.1`);
    const token = ((await login.json()) as any).data.token as string;
    const reserve = async () => {
      const res = await fetch(`${server.baseUrl}/matchmake/joinOrCreate/lobby`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: "{}",
      });
      return (await res.json()) as { processId: string; roomId: string; sessionId: string };
    };
    const seat = await reserve();
    const roomUrl = `${wsBase}/${seat.processId}/${seat.roomId}`;

    // No seat: a made-up session in a live room, and a room that does not exist.
    assert.equal(await closeCodeOf(`${roomUrl}?sessionId=made-up`), 4002);
    assert.equal(await closeCodeOf(`${wsBase}/${seat.processId}/noSuchRoom?sessionId=${seat.sessionId}`), 4002);
    // A real seat, then a message above the transport's limit: the socket is closed as too big.
    assert.equal(await closeCodeOf(`${roomUrl}?sessionId=${seat.sessionId}`, Buffer.alloc(MAX_WS_PAYLOAD_BYTES + 1024)), 1009);

    // Unreadable bodies: corrupt gzip and brotli streams are the client's fault, answered 400.
    for (const encoding of ["gzip", "br"]) {
      const res = await post(server.baseUrl, { "content-encoding": encoding }, Buffer.from("not compressed"));
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.data.code, "invalid_request");
    }
    // A body shorter than its Content-Length, from a client that then gives up.
    const port = Number(new URL(server.baseUrl).port);
    await sendRaw(port, Buffer.from("POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"a\":"));
    await sleep(500);

    const output = server.output();
    const lines = output.split("\n").filter((l) => l.trim() !== "");
    const parsed: LogLine[] = lines.flatMap((l) => {
      try {
        return [JSON.parse(l) as LogLine];
      } catch {
        return [];
      }
    });
    assert.deepEqual(lines.filter((l) => /^\s+at /.test(l) || l.includes("\\n    at ")), [], "no stack traces");
    assert.deepEqual(parsed.filter((l) => (l.level ?? 0) >= 50), [], "nothing at error level");
    const count = (msg: string) => parsed.filter((l) => l.msg === msg && l.level! >= 30 && l.level! <= 40).length;
    assert.equal(count("room connection refused: no valid seat reservation"), 2);
    assert.equal(count("room connection error caused by the client"), 1);
    assert.ok(count("request body refused") >= 3, output);
  });
});
