/**
 * A local stand-in for the mini-game platforms' server APIs, served by one node:http server. It knows
 * no platform itself: every registered platform module contributes its routes (src/platforms/<name>/
 * *-simulator.ts), mounted at the platform's real paths. A platform whose paths collide with an
 * earlier one's (QQ copies WeChat's `/sns/jscode2session`) is mounted under `/<name>`, so its base
 * URL is the simulator's URL plus that prefix (`simulatorBaseUrl`).
 *
 * Like the real platforms every answer is HTTP 200, errors included; only an unknown route gets a
 * 404. Extra routes for tests and the playground, in this or another process:
 * - `GET /__simulator/stats` and `POST /__simulator/reset` read and reset the upstream-call counters;
 * - `POST /__simulator/encrypt` with `{"session_key", "data", "watermark_appid"?}` does what the
 *   platform does for a client's `getUserInfo`/`getPhoneNumber`: encrypts `data` (a JSON object)
 *   under a session key the simulator issued (any platform), adding `watermark {appid, timestamp}`
 *   (the key's app unless `watermark_appid` says otherwise), and answers `{"encryptedData", "iv"}`;
 *   an unknown key is 404 `{errcode: 404}`, a malformed body 400 `{errcode: 400}`;
 * - `POST /__simulator/content-check` with any of `{"perMinute", "perDay", "recentLoginMs"}` (numbers ≥ 0)
 *   changes the content checks' per-app limits and WeChat's recent-login window (`{"perMinute": 0}`: every
 *   check answers the platform's limit error) and answers the settings now in force;
 * - `GET /__simulator/storage`, `POST /__simulator/subscribe-grant`, `GET /__simulator/subscribe-messages`:
 *   player storage, subscribe grants and delivered messages (social-controls.ts).
 */
import { DouyinFeedSimulator } from "./douyin-feed-simulator";
import { DouyinLiveSimulator } from "./douyin-live-simulator";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { PlatformDefinition } from "../platforms/platform";
import { platformDefinitions } from "../platforms/registry";
import type { ContentCheckSettings } from "./content-security";
import { encryptForClient } from "./open-data";
import { isSocialControl, socialControl } from "./social-controls";
import { growthControl, isGrowthControl } from "./growth-controls";
import { CALL_KINDS, JSON_TYPE, MALFORMED_BODY, type CallKind, type PlatformSimContext, type SimReply, type SimRequest, type SimulatorRoute } from "./platform-simulator";
import { PaymentSimulator, type PaymentSimulatorOptions } from "./payments/payment-simulator";
import { SimulatorState, type SimulatorApp } from "./state";
import { parseJsonObject } from "../platforms/shared/json-object";
import { readRawBody } from "./request-body";

export type { SimulatorApp } from "./state";

/** The platform parts the simulator needs: name, default app and routes. */
export type SimulatedPlatform = Pick<PlatformDefinition, "name" | "simulatorApp" | "simulator">;

export interface SimulatorOptions {
  host?: string;
  port?: number;
  /** Apps the simulator accepts; default: each platform's simulator app. */
  apps?: SimulatorApp[];
  /** Default: every registered platform. */
  platforms?: readonly SimulatedPlatform[];
  /** ms clock, so tests can expire codes and tokens without waiting. */
  now?: () => number;
  /** Content-check limits and WeChat's recent-login window (defaults: the documented ones). */
  contentCheck?: Partial<ContentCheckSettings>;
  /** Payments (wallets, item purchases): the push retry schedule's scale. */
  payments?: PaymentSimulatorOptions;
}

/** The simulator app (id and secret) of every given platform. */
export function defaultSimulatorApps(platforms: readonly SimulatedPlatform[] = platformDefinitions): SimulatorApp[] {
  return platforms.map((p) => ({ platform: p.name, ...p.simulatorApp }));
}

/** Upstream calls served per kind and platform: `{ code2session: { wechat: 2, … }, accessToken: { … } }`. */
export type SimulatorStats = Record<CallKind, Record<string, number>>;

export interface RunningSimulator {
  /** e.g. http://127.0.0.1:41234, without a trailing slash. */
  url: string;
  /** Upstream calls served: every request to those endpoints, success or error. */
  stats(): SimulatorStats;
  resetStats(): void;
  /** Wallets and item purchases (payments/payment-simulator.ts): balances, and where purchases are pushed by default. */
  payments: PaymentSimulator;
  /** Changes the content-check limits at run time, e.g. `{ perMinute: 0 }` to make every check hit the limit. */
  setContentCheck(settings: Partial<ContentCheckSettings>): void;
  /** The same for WeChat's mini-game check, which has a limit of its own (chat). */
  setGameContentCheck(settings: Partial<Pick<ContentCheckSettings, "perMinute" | "perDay">>): void;
  /** Douyin's live side (douyin-live-simulator.ts): streamers, tasks, pushes, failed data. */
  douyinLive: DouyinLiveSimulator;
  /** Douyin calling the developer's feed direct-play URL (douyin-feed-simulator.ts). */
  douyinFeed: DouyinFeedSimulator;
  /** Also drops keep-alive connections, so a pooled client cannot hold the server open. */
  close(): Promise<void>;
}

/** Path prefix of each platform in the simulator: "" unless its paths collide with an earlier platform's. */
export function simulatorPathPrefixes(platforms: readonly SimulatedPlatform[] = platformDefinitions): Map<string, string> {
  const taken = new Set<string>();
  const prefixes = new Map<string, string>();
  for (const p of platforms) {
    const keys = p.simulator.routes.map((r) => `${r.method} ${r.path}`);
    const prefix = keys.some((k) => taken.has(k)) ? `/${p.name}` : "";
    for (const r of p.simulator.routes) taken.add(`${r.method} ${prefix}${r.path}`);
    prefixes.set(p.name, prefix);
  }
  return prefixes;
}

/** Where a platform's API is inside a simulator at `simulatorUrl`. */
export function simulatorBaseUrl(simulatorUrl: string, platform: string, platforms: readonly SimulatedPlatform[] = platformDefinitions): string {
  const prefix = simulatorPathPrefixes(platforms).get(platform);
  if (prefix === undefined) throw new Error(`simulator: unknown platform ${platform}`);
  return simulatorUrl + prefix;
}

/**
 * Settings (as environment variables) that enable every given platform and point it at a simulator
 * running at `simulatorUrl` with the simulator's own app credentials: for tests, the bench and pm2 runs.
 */
export function simulatorPlatformEnv(simulatorUrl: string, platforms: readonly SimulatedPlatform[] = platformDefinitions): Record<string, string> {
  const env: Record<string, string> = { PLATFORM_SIMULATOR: "off", PLATFORMS: platforms.map((p) => p.name).join(",") };
  for (const p of platforms) {
    const prefix = p.name.toUpperCase();
    env[`${prefix}_APP_ID`] = p.simulatorApp.appId;
    env[`${prefix}_APP_SECRET`] = p.simulatorApp.appSecret;
    env[`${prefix}_API_BASE_URL`] = simulatorBaseUrl(simulatorUrl, p.name, platforms);
  }
  return env;
}

interface MountedRoute {
  platform: string;
  route: SimulatorRoute;
  context: PlatformSimContext;
}

function readBody(req: http.IncomingMessage): Promise<SimRequest["body"]> {
  return readRequestBody(req).then((r) => r.body);
}

/** The parsed body, and its text as received (signed APIs check a signature over exactly those bytes). */
async function readRequestBody(req: http.IncomingMessage): Promise<Pick<SimRequest, "body" | "rawBody">> {
  const rawBody = await readRawBody(req);
  if (rawBody === undefined) return { body: MALFORMED_BODY };
  return { body: parseJsonObject(rawBody) ?? MALFORMED_BODY, rawBody };
}

function send(res: http.ServerResponse, status: number, reply: SimReply): void {
  const payload = JSON.stringify(reply.body);
  res.writeHead(status, { "content-type": reply.contentType, "content-length": Buffer.byteLength(payload) });
  res.end(payload);
}

const CONTENT_CHECK_KEYS = ["perMinute", "perDay", "recentLoginMs"] as const;

/** The settings a content-check switch request changes, or undefined when it is not a valid one. */
function contentCheckChanges(body: SimRequest["body"]): Partial<ContentCheckSettings> | undefined {
  if (body === MALFORMED_BODY || body === undefined) return undefined;
  const entries = Object.entries(body);
  const valid = entries.every(([k, v]) => (CONTENT_CHECK_KEYS as readonly string[]).includes(k) && typeof v === "number" && Number.isFinite(v) && v >= 0);
  return valid ? (Object.fromEntries(entries) as Partial<ContentCheckSettings>) : undefined;
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const host = options.host ?? "127.0.0.1";
  const platforms = options.platforms ?? platformDefinitions;
  const state = new SimulatorState(options.apps ?? defaultSimulatorApps(platforms), options.now ?? Date.now);
  state.contentCheck = { ...state.contentCheck, ...options.contentCheck };
  const prefixes = simulatorPathPrefixes(platforms);
  const routes = new Map<string, MountedRoute>();
  for (const p of platforms) {
    const context = state.contextFor(p.name, p.simulator.tokenPolicy);
    for (const route of p.simulator.routes) routes.set(`${route.method} ${prefixes.get(p.name)}${route.path}`, { platform: p.name, route, context });
  }

  const payments = new PaymentSimulator(
    {
      context: (platform) => {
        const p = platforms.find((d) => d.name === platform);
        return p ? state.contextFor(p.name, p.simulator.tokenPolicy) : undefined;
      },
      defaultAppId: (platform) => (options.apps ?? defaultSimulatorApps(platforms)).find((a) => a.platform === platform)?.appId,
      now: options.now ?? Date.now,
    },
    options.payments,
  );

  const douyin = platforms.find((d) => d.name === "douyin");
  const douyinLive = new DouyinLiveSimulator(
    (token) => (douyin ? state.contextFor(douyin.name, douyin.simulator.tokenPolicy).tokenStatus(token).status === "valid" : false),
    options.now ?? Date.now,
  );
  const douyinFeed = new DouyinFeedSimulator(options.now ?? Date.now);

  const perPlatform = (): Record<string, number> => Object.fromEntries(platforms.map((p) => [p.name, 0]));
  const zeroStats = () => Object.fromEntries(CALL_KINDS.map((kind) => [kind, perPlatform()])) as SimulatorStats;
  let counters = zeroStats();
  const stats = () => Object.fromEntries(CALL_KINDS.map((kind) => [kind, { ...counters[kind] }])) as SimulatorStats;

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://simulator.invalid");
    const routeKey = `${req.method} ${url.pathname}`;
    if (routeKey === "GET /__simulator/stats") return send(res, 200, { contentType: JSON_TYPE, body: stats() });
    if (routeKey === "POST /__simulator/reset") {
      req.resume();
      counters = zeroStats();
      return send(res, 200, { contentType: JSON_TYPE, body: stats() });
    }
    if (routeKey === "POST /__simulator/encrypt") {
      const { status, body } = encryptForClient(await readBody(req), state);
      return send(res, status, { contentType: JSON_TYPE, body });
    }
    if (routeKey === "POST /__simulator/content-check") {
      const changes = contentCheckChanges(await readBody(req));
      if (!changes) return send(res, 400, { contentType: JSON_TYPE, body: { errcode: 400, errmsg: "expected {perMinute, perDay, recentLoginMs} numbers >= 0" } });
      state.contentCheck = { ...state.contentCheck, ...changes };
      return send(res, 200, { contentType: JSON_TYPE, body: state.contentCheck });
    }
    if (isSocialControl(routeKey)) {
      const { status, body } = socialControl(routeKey, url.searchParams, req.method === "POST" ? await readBody(req) : (req.resume(), undefined), state.social);
      return send(res, status, { contentType: JSON_TYPE, body });
    }
    if (isGrowthControl(routeKey)) {
      const { status, body } = growthControl(routeKey, url.searchParams, req.method === "POST" ? await readBody(req) : (req.resume(), undefined), state.social);
      return send(res, status, { contentType: JSON_TYPE, body });
    }
    if (payments.owns(req.method ?? "", url.pathname)) {
      const { status, reply } = await payments.handle(req, url);
      return send(res, status, reply);
    }
    if (douyinLive.owns(req.method ?? "", url.pathname)) {
      const body = req.method === "POST" ? await readBody(req) : (req.resume(), undefined);
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v[0] : (v ?? "")]));
      const out = await douyinLive.handle(req.method ?? "", url.pathname, url.searchParams, headers, body && body !== MALFORMED_BODY ? body : {});
      return send(res, out.status, { contentType: JSON_TYPE, body: out.body });
    }
    if (req.method === "POST" && douyinFeed.owns(url.pathname)) {
      const body = await readBody(req);
      const out = await douyinFeed.handle(url.pathname, body && body !== MALFORMED_BODY ? body : {});
      return send(res, out.status, { contentType: JSON_TYPE, body: out.body });
    }
    const mounted = routes.get(routeKey);
    if (!mounted) {
      req.resume();
      return send(res, 404, { contentType: JSON_TYPE, body: { errcode: 404, errmsg: `no simulator route for ${routeKey}` } });
    }
    counters[mounted.route.counts][mounted.platform] += 1;
    let received: Pick<SimRequest, "body" | "rawBody"> = { body: undefined };
    if (req.method === "POST") received = await readRequestBody(req);
    else req.resume();
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v[0] : (v ?? "")]));
    send(res, 200, mounted.route.handle({ query: url.searchParams, headers, ...received }, mounted.context));
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
    payments,
    douyinLive,
    douyinFeed,
    resetStats: () => {
      counters = zeroStats();
    },
    setContentCheck: (settings) => {
      state.contentCheck = { ...state.contentCheck, ...settings };
    },
    setGameContentCheck: (settings) => {
      state.gameContentCheck = { ...state.gameContentCheck, ...settings };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        payments.close();
        if (!server.listening) return resolve();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
