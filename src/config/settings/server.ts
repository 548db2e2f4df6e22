/** Settings of the process itself: where it listens, who may call it, how it stops, what it exposes. */
import { z } from "zod";
import { compileTrust } from "../../net/client-ip";
import { canonicalOrigin, type CorsOrigins } from "../../net/cors-policy";
import { bool, int, splitList } from "../config-types";

export const serverShape = {
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: int(0, 65535).default(2567),
  HOST: z
    .string()
    .regex(/^[A-Za-z0-9.:-]+$/, "must be an interface address (e.g. 127.0.0.1, 0.0.0.0, ::) or a host name")
    .optional(),
  CORS_ORIGINS: z
    .string()
    .refine(
      (v) => v === "*" || v === "none" || splitList(v).every((o) => canonicalOrigin(o) !== undefined),
      "must be *, none, or a comma-separated list of origins such as https://game.example.com",
    )
    .optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  TRUST_PROXY: z
    .string()
    .refine(
      (v) => isValidTrustProxy(v),
      "must be true, false, a hop count, or a comma-separated list of proxy addresses/subnets (loopback, linklocal, uniquelocal allowed)",
    )
    .optional(),
  LOBBY_MAX_CLIENTS: int(1, 10_000).default(500),
  INSTANCES: int(1, 256).optional(),
  NODE_APP_INSTANCE: int(0, 255).default(0),
  PUBLIC_ADDRESS: z
    .string()
    .refine(
      isValidPublicAddress,
      "must be host[:port][/path] without a scheme or trailing slash, {port} at most once: game.example.com/{port}, game.example.com/a/{port} or game.example.com/a",
    )
    .optional(),
  ROOM_SEAT_RESERVATION_SEC: int(1, 600).default(15),
  ROOM_RECONNECT_SECONDS: int(0, 3600).default(60),
  PRESENCE_REQUEST_TIMEOUT_MS: int(100, 60_000).default(2000),
  HOST_CHECK_INTERVAL_MS: int(0, 600_000).default(1000),
  SHUTDOWN_TIMEOUT_MS: int(0, 120_000).default(10_000),
  SHUTDOWN_ACCEPT_WINDOW_MS: int(0, 30_000).default(1000),
  METRICS_ENABLED: bool.default(true),
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  API_DOCS_ENABLED: bool.default(true),
  PLAYGROUND_ENABLED: bool.optional(),
  HTTP_HOT_FRONT: bool.default(true),
};

type ServerSettings = z.output<z.ZodObject<typeof serverShape>>;

export function serverConfig(s: ServerSettings, simulator: "embedded" | "off") {
  // The port @colyseus/tools' listen() binds: PORT plus pm2's NODE_APP_INSTANCE.
  const processPort = s.PORT + s.NODE_APP_INSTANCE;
  return {
    env: s.NODE_ENV,
    port: s.PORT,
    /** Interface to listen on: loopback in development (the built-in JWT secret stays on this machine), every interface in production. */
    host: s.HOST ?? (s.NODE_ENV === "production" ? "0.0.0.0" : "127.0.0.1"),
    /** Origins browsers may call /api and /matchmake from: any in development, none in production unless CORS_ORIGINS lists them. */
    corsOrigins: parseCorsOrigins(s.CORS_ORIGINS, s.NODE_ENV),
    logLevel: s.LOG_LEVEL,
    /** Which hops may speak for the client in X-Forwarded-For (Express "trust proxy" semantics; see src/net/client-ip.ts). */
    trustProxy: parseTrustProxy(s.TRUST_PROXY),
    /** Seats per lobby room; a full lobby makes the next joiner a new one. */
    lobbyMaxClients: s.LOBBY_MAX_CLIENTS,
    /** Address room seats point clients at (host[:port][/path]); `{port}` becomes this process's port. */
    publicAddress: s.PUBLIC_ADDRESS?.replace("{port}", String(processPort)),
    /**
     * How long a room keeps the seat of a player whose connection dropped (backgrounded, an ad, a
     * network switch) while their session lives; 0 releases it at once. Rooms may override it per
     * type. Why 60 s: docs/decisions.md § "How long a room holds a dropped player's seat".
     */
    roomReconnectSeconds: s.ROOM_RECONNECT_SECONDS,
    /** Colyseus's own timeouts; see colyseus-environment.ts for how they reach it. */
    colyseus: {
      /** How long a reserved seat waits for its client's WebSocket. */
      seatReservationSec: s.ROOM_SEAT_RESERVATION_SEC,
      /** How long a request to another process (create a room, reserve a seat, health check) may take. */
      presenceRequestTimeoutMs: s.PRESENCE_REQUEST_TIMEOUT_MS,
    },
    /** Period of the dead/returning host checks with shared Redis (0 turns them off); see host-health.ts. */
    hostCheckIntervalMs: s.HOST_CHECK_INTERVAL_MS,
    shutdownTimeoutMs: s.SHUTDOWN_TIMEOUT_MS,
    /** After SIGTERM, keep accepting this long so queued connections are served rather than reset. */
    shutdownAcceptWindowMs: s.SHUTDOWN_ACCEPT_WINDOW_MS,
    metrics: { enabled: s.METRICS_ENABLED, token: s.METRICS_TOKEN },
    /** Serve the OpenAPI description and Swagger UI at /api-docs.json and /api-docs. */
    apiDocsEnabled: s.API_DOCS_ENABLED,
    /** Serve the browser playground at /; by default only next to the embedded simulator. */
    playgroundEnabled: s.PLAYGROUND_ENABLED ?? simulator === "embedded",
    /**
     * Answer the hot routes (logins, access token, /users/me, refresh) from the server's request
     * listener before Express (src/server/hot-front.ts). Off only to compare the two paths (tests, bench):
     * the answers are the same either way.
     */
    hotFront: s.HTTP_HOT_FRONT,
  };
}

/**
 * host[:port][/path], as Colyseus puts it into seat URLs (`wss://<address>/<processId>/<roomId>`):
 * a host name, IPv4 or [IPv6] address; a port or {port}; path segments of URL-safe characters or
 * {port}. Behind one registered domain each host gets its own path (game.example.com/a or
 * game.example.com/a/{port} with several processes per host).
 */
export function isValidPublicAddress(value: string): boolean {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?::(\d{1,5}|\{port\}))?((?:\/(?:[A-Za-z0-9._~-]+|\{port\}))*)$/.exec(value);
  if (!match) return false;
  if (match[2] && match[2] !== "{port}" && Number(match[2]) > 65535) return false;
  return (value.match(/\{port\}/g) ?? []).length <= 1;
}

/** "true"/"false", a hop count, or a comma-separated list of trusted proxy addresses/subnets. */
function parseTrustProxy(value: string | undefined): boolean | number | string {
  if (value === undefined || value === "false" || value === "0") return false;
  if (value === "true") return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

function isValidTrustProxy(value: string): boolean {
  try {
    compileTrust(parseTrustProxy(value));
    return true;
  } catch {
    return false;
  }
}

function parseCorsOrigins(value: string | undefined, env: ServerSettings["NODE_ENV"]): CorsOrigins {
  if (value === undefined) return env === "production" ? [] : "any";
  if (value === "*") return "any";
  if (value === "none") return [];
  return splitList(value).map((o) => canonicalOrigin(o)!);
}
