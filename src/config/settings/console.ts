/** Settings of the operator console at /console (docs/console.md). */
import { z } from "zod";
import { bool, int, type SettingProblem } from "../config-types";

export const consoleShape = {
  CONSOLE_ENABLED: bool.optional(),
  CONSOLE_SESSION_TTL_SEC: int(300, 86_400).default(8 * 3600),
  CONSOLE_IDLE_TIMEOUT_SEC: int(60, 86_400).default(30 * 60),
  CONSOLE_LOCKOUT_SEC: int(60, 86_400).default(15 * 60),
  CONSOLE_SUPPORT_GRANT_MAX: int(0, 999_999_999).default(1000),
  CONSOLE_AUDIT_RETENTION_DAYS: int(0, 36_500).default(365),
};

type ConsoleSettings = z.output<z.ZodObject<typeof consoleShape>> & { NODE_ENV: string; TRUST_PROXY?: string };

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
  };
}

/** In production the console is opt-in and then only behind a TLS-terminating proxy (docs/console.md). */
export function consoleProductionProblems(s: ConsoleSettings): SettingProblem[] {
  if (s.NODE_ENV !== "production" || s.CONSOLE_ENABLED !== true) return [];
  const problems: SettingProblem[] = [];
  if (!s.TRUST_PROXY || s.TRUST_PROXY === "false" || s.TRUST_PROXY === "0") {
    problems.push({ key: "TRUST_PROXY", message: "CONSOLE_ENABLED=true in production needs TRUST_PROXY naming the HTTPS proxy (the console signs in over HTTPS only)" });
  }
  if (s.CONSOLE_SESSION_TTL_SEC > 12 * 3600) problems.push({ key: "CONSOLE_SESSION_TTL_SEC", message: "at most 43200 (12 hours) in production" });
  return problems;
}
