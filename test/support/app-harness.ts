/**
 * Boots the real server definition (src/server/app.config.ts) with @colyseus/testing on a free port,
 * against a standalone simulator started as a real HTTP server, and captures the logs.
 */
import net from "node:net";
import os from "node:os";
import path from "node:path";
import fs from "node:fs";
import { Writable } from "node:stream";
import { boot, type ColyseusTestServer } from "@colyseus/testing";
import { createApp, type App } from "../../src/server/app.config";
import { parseConfig, type AppConfig } from "../../src/config/config";
import type { ServiceOverrides, Services } from "../../src/server/container";
import { createLogger } from "../../src/logging/logger";
import { simulatorPlatformEnv, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import type { Backend } from "./backends";

export const TEST_JWT_SECRET = "test-jwt-secret-with-more-than-thirty-two-bytes";

/** Settings that enable every registered platform and point it at a running simulator. */
export { simulatorPlatformEnv } from "../../src/simulator/simulator-server";

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface Harness {
  baseUrl: string;
  colyseus: ColyseusTestServer;
  app: App;
  services: Services;
  config: AppConfig;
  simulator: RunningSimulator;
  logs: string[];
  get(pathAndQuery: string, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  request(method: string, pathAndQuery: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  overrides?: ServiceOverrides;
  /** Reuse a simulator (e.g. to share counters); otherwise one is started and stopped with the app. */
  simulator?: RunningSimulator;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const simulator = options.simulator ?? (await startSimulator({ port: 0 }));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-"));
  const config = parseConfig({
    NODE_ENV: "test",
    JWT_SECRET: TEST_JWT_SECRET,
    LOG_LEVEL: "debug",
    SHUTDOWN_ACCEPT_WINDOW_MS: "0",
    SQLITE_PATH: path.join(tmp, "users.sqlite"),
    ...simulatorPlatformEnv(simulator.url),
    // TEST_HTTP_HOT_FRONT=false runs a suite with the hot routes through Express (test/e2e/hot-front.test.ts).
    ...(process.env.TEST_HTTP_HOT_FRONT ? { HTTP_HOT_FRONT: process.env.TEST_HTTP_HOT_FRONT } : {}),
    ...options.env,
  });
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      logs.push(chunk.toString());
      cb();
    },
  });
  const logger = createLogger({ level: config.logLevel, destination });
  const app = createApp(config, { logger, overrides: { retryDelayMs: () => 5, ...options.overrides } });
  const port = await freePort();
  const colyseus = await boot(app.definition, port);
  const baseUrl = `http://127.0.0.1:${port}`;

  const request = async (method: string, pathAndQuery: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(baseUrl + pathAndQuery, {
      method,
      headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // leave as text: the test decides whether that is acceptable
    }
    return { status: res.status, body: parsed as any, headers: res.headers };
  };

  return {
    baseUrl,
    colyseus,
    app,
    services: app.services(),
    config,
    simulator,
    logs,
    get: (p, headers) => request("GET", p, undefined, headers),
    request,
    close: async () => {
      await colyseus.shutdown();
      if (!options.simulator) await simulator.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/**
 * Inside a `describe`: a harness on `backend`, booted before its tests and closed (with the
 * backend's database) after them. The returned object stands for the harness that `before` boots.
 */
export function useHarness(backend: Backend, options: HarnessOptions = {}): Harness {
  let live: Harness | undefined;
  let release: (() => Promise<void>) | undefined;
  before(async () => {
    const prepared = await backend.prepare();
    release = prepared.release;
    live = await startHarness({ ...options, env: { ...prepared.env, ...options.env } });
  });
  after(async () => {
    await live?.close();
    live = undefined;
    await release?.();
  });
  return new Proxy({} as Harness, {
    get(_target, key) {
      if (!live) throw new Error("the harness is used outside the tests of the describe that declared it");
      return Reflect.get(live, key);
    },
  });
}
