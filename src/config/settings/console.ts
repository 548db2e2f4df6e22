/** Settings of the operator console at /console (docs/console.md). */
import { z } from "zod";
import { bool, int, splitList, type SettingProblem } from "../config-types";
import { DEV_JWT_SECRET, isPlaceholder } from "../production-rules";

export const consoleShape = {
  CONSOLE_ENABLED: bool.optional(),
  CONSOLE_SESSION_TTL_SEC: int(300, 86_400).default(8 * 3600),
  CONSOLE_IDLE_TIMEOUT_SEC: int(60, 86_400).default(30 * 60),
  CONSOLE_LOCKOUT_SEC: int(60, 86_400).default(15 * 60),
  CONSOLE_SUPPORT_GRANT_MAX: int(0, 999_999_999).default(1000),
  CONSOLE_AUDIT_RETENTION_DAYS: int(0, 36_500).default(365),
  CONSOLE_SECRET_KEY: z.string().min(1).optional(),
  CONSOLE_PREVIOUS_SECRET_KEYS: z.string().optional(),
};

const MIN_KEY_BYTES = 32;

type ConsoleSettings = z.output<z.ZodObject<typeof consoleShape>> & { NODE_ENV: string; TRUST_PROXY?: string; JWT_SECRET?: string; JWT_PREVIOUS_SECRETS?: string };

export function consoleConfig(s: ConsoleSettings) {
  return {
    console: {
      /** Serve /console: on by default except in production. */
      enabled: s.CONSOLE_ENABLED ?? s.NODE_ENV !== "production",
      /** A sign-in lasts at most this long, */
      sessionTtlSec: s.CONSOLE_SESSION_TTL_SEC,
      /** and ends sooner after this long without a request. */
      idleTimeoutSec: Math.min(s.CONSOLE_IDLE_TIMEOUT_SEC, s.CONSOLE_SESSION_TTL_SEC),
      /** How long 10 wrong passwords lock an operator name. */
      lockoutSec: s.CONSOLE_LOCKOUT_SEC,
      /** The most coins one grant by a `support` operator may give (admins have no limit). */
      supportGrantMax: s.CONSOLE_SUPPORT_GRANT_MAX,
      /** Audit entries older than this many days are removed (hourly by the server, or `admin audit prune`); 0 keeps them for ever. */
      auditRetentionDays: s.CONSOLE_AUDIT_RETENTION_DAYS,
    },
    /**
     * The key material TOTP seeds are encrypted with (seed-cipher.ts): CONSOLE_SECRET_KEY, else
     * JWT_SECRET's. Apart from `console` (which the console's settings screen shows): never shown.
     */
    consoleSeedKeys: consoleSeedKeys(s),
  };
}

function consoleSeedKeys(s: ConsoleSettings): { current: string; previous: string[] } {
  const jwt = [s.JWT_SECRET ?? DEV_JWT_SECRET, ...splitList(s.JWT_PREVIOUS_SECRETS)].map((k) => `jwt:${k}`);
  const previous = splitList(s.CONSOLE_PREVIOUS_SECRET_KEYS).map((k) => `console:${k}`);
  // Seeds a CLI wrote before CONSOLE_SECRET_KEY was set stay readable through the JWT-derived keys.
  return s.CONSOLE_SECRET_KEY ? { current: `console:${s.CONSOLE_SECRET_KEY}`, previous: [...previous, ...jwt] } : { current: jwt[0]!, previous: [...previous, ...jwt.slice(1)] };
}

/**
 * In production the console is opt-in and then only behind a TLS-terminating proxy, with its own
 * strong key for the TOTP seeds (docs/console.md).
 */
export function consoleProductionProblems(s: ConsoleSettings): SettingProblem[] {
  if (s.NODE_ENV !== "production" || s.CONSOLE_ENABLED !== true) return [];
  const problems: SettingProblem[] = [];
  if (!s.TRUST_PROXY || s.TRUST_PROXY === "false" || s.TRUST_PROXY === "0") {
    problems.push({ key: "TRUST_PROXY", message: "CONSOLE_ENABLED=true in production needs TRUST_PROXY naming the HTTPS proxy (the console signs in over HTTPS only)" });
  }
  if (s.CONSOLE_SESSION_TTL_SEC > 12 * 3600) problems.push({ key: "CONSOLE_SESSION_TTL_SEC", message: "at most 43200 (12 hours) in production" });
  // Admins sign in with TOTP in production: their seeds are encrypted with this key, kept apart from JWT_SECRET.
  const key = s.CONSOLE_SECRET_KEY;
  if (!key) problems.push({ key: "CONSOLE_SECRET_KEY", message: "CONSOLE_ENABLED=true in production needs a key for the operators' TOTP seeds (at least 32 random bytes, e.g. openssl rand -base64 48)" });
  else if (Buffer.byteLength(key, "utf8") < MIN_KEY_BYTES || isPlaceholder(key)) problems.push({ key: "CONSOLE_SECRET_KEY", message: `must be at least ${MIN_KEY_BYTES} bytes and not a placeholder` });
  else if (key === s.JWT_SECRET) problems.push({ key: "CONSOLE_SECRET_KEY", message: "must differ from JWT_SECRET" });
  return problems;
}
