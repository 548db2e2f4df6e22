/** Settings of tokens, sessions, rate limits and what the HTTP edge hands out. */
import { z } from "zod";
import { bool, int, splitList } from "../config-types";
import { DEV_JWT_SECRET } from "../production-rules";

export const sessionsShape = {
  JWT_SECRET: z.string().min(1).optional(),
  JWT_PREVIOUS_SECRETS: z.string().optional(),
  ACCESS_TOKEN_TTL_SEC: int(60, 30 * 24 * 3600).default(7200),
  REFRESH_TOKEN_TTL_SEC: int(300, 365 * 24 * 3600).default(30 * 24 * 3600),
  REFRESH_GRACE_SEC: int(0, 300).default(10),
  RECENT_LOGIN_SEC: int(30, 24 * 3600).default(600),

  RATE_LIMIT_ENABLED: bool.default(true),
  RATE_LIMIT_WINDOW_SEC: int(1, 3600).default(60),
  RATE_LIMIT_IP_MAX: int(1, 1_000_000).default(600),
  RATE_LIMIT_USER_MAX: int(1, 1_000_000).default(60),
  RATE_LIMIT_ACCOUNT_MAX: int(1, 10_000).default(10),
  RATE_LIMIT_ACCOUNT_WINDOW_SEC: int(1, 24 * 3600).default(300),

  ACCESS_TOKEN_ROUTE_KEY: z.string().min(16, "must be at least 16 characters").optional(),
  ACCESS_TOKEN_ROUTE_PUBLIC: bool.default(false),
  /** Unset: sent in development, not in production (docs/decisions.md, "The session key"). */
  EXPOSE_SESSION_KEY: bool.optional(),
  /** Production refuses EXPOSE_SESSION_KEY=true without this: sending it is a decision, not a default. */
  EXPOSE_SESSION_KEY_CONFIRMED: bool.default(false),
  PLACEHOLDER_EMAIL_DOMAIN: z
    .string()
    .regex(/^[a-z0-9.-]+\.[a-z]{2,}$/i, "must be a domain name")
    .default("players.invalid"),
};

type SessionsSettings = z.output<z.ZodObject<typeof sessionsShape>>;

export function sessionsConfig(s: SessionsSettings & { NODE_ENV?: string }) {
  return {
    jwt: {
      secret: s.JWT_SECRET ?? DEV_JWT_SECRET,
      /** True when JWT_SECRET is unset and the built-in development secret signs tokens. */
      isDevelopmentSecret: !s.JWT_SECRET,
      previousSecrets: splitList(s.JWT_PREVIOUS_SECRETS),
      accessTtlSec: s.ACCESS_TOKEN_TTL_SEC,
      refreshTtlSec: s.REFRESH_TOKEN_TTL_SEC,
    },
    /** Seconds a rotated refresh token still gets the pair its rotation produced. */
    refreshGraceSec: s.REFRESH_GRACE_SEC,
    /** How fresh a login must be to set a first password without the current one. */
    recentLoginSec: s.RECENT_LOGIN_SEC,
    rateLimit: {
      enabled: s.RATE_LIMIT_ENABLED,
      windowSec: s.RATE_LIMIT_WINDOW_SEC,
      /** Requests per client IP per window, per route group; generous, since carrier NAT shares IPs. */
      ipMax: s.RATE_LIMIT_IP_MAX,
      /** Requests per authenticated user per window (refresh, matchmaking). */
      userMax: s.RATE_LIMIT_USER_MAX,
      /**
       * Password attempts per account per account window, whichever identifier or route they come
       * through (account-service.ts): slows guessing, locks out only briefly.
       */
      accountMax: s.RATE_LIMIT_ACCOUNT_MAX,
      accountWindowSec: s.RATE_LIMIT_ACCOUNT_WINDOW_SEC,
    },
    accessTokenRoute: { key: s.ACCESS_TOKEN_ROUTE_KEY, public: s.ACCESS_TOKEN_ROUTE_PUBLIC },
    exposeSessionKey: s.EXPOSE_SESSION_KEY ?? s.NODE_ENV !== "production",
    placeholderEmailDomain: s.PLACEHOLDER_EMAIL_DOMAIN,
  };
}
