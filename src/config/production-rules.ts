/**
 * What production refuses beyond the schema: the development JWT secret, weak or placeholder
 * secrets, the simulator, unguarded access-token routes, WeChat gift pushes whose bodies nothing
 * would authenticate, and arena.env's "change-me" placeholders.
 */
import type { Env, SettingProblem } from "./config-types";

export const DEV_JWT_SECRET = "development-only-jwt-secret-do-not-use-in-production";
const MIN_SECRET_BYTES = 32;
const PLACEHOLDER = /change[-_ ]?me|placeholder|replace[-_ ]?me|your[-_]|example|xxx|todo|development-only/i;

/** The settings the production rules look at, already parsed. */
export interface ProductionFacts {
  production: boolean;
  jwtSecret?: string;
  previousSecrets: string[];
  simulator: "embedded" | "off";
  /** `<NAME>_APP_SECRET` of every enabled platform. */
  platformSecrets: Array<{ key: string; value?: string }>;
  /** The app secrets of APPS_FILE, each named `<app key>.<platform>`. */
  appSecrets?: Array<{ where: string; value: string }>;
  accessTokenRouteKey?: string;
  accessTokenRoutePublic: boolean;
  /** EXPOSE_SESSION_KEY as set (undefined: unset) and its confirmation. */
  exposeSessionKey?: boolean;
  exposeSessionKeyConfirmed?: boolean;
  /** WeChat gift pushes set up without an EncodingAESKey (settings/rewards.ts giftPushesWithoutAesKey). */
  giftPushesWithoutAesKey?: Array<{ key: string; where: string }>;
}

export function productionProblems(f: ProductionFacts): SettingProblem[] {
  if (!f.production) return [];
  const problems: SettingProblem[] = [];
  const problem = (key: string, message: string) => problems.push({ key, message });
  if (!f.jwtSecret) problem("JWT_SECRET", "required in production");
  else if (isWeakSecret(f.jwtSecret)) problem("JWT_SECRET", `must be at least ${MIN_SECRET_BYTES} bytes and not a placeholder`);
  if (f.previousSecrets.some(isWeakSecret)) problem("JWT_PREVIOUS_SECRETS", "every entry must be a strong secret");
  if (f.simulator === "embedded") problem("PLATFORM_SIMULATOR", "the simulator is not allowed in production");
  for (const { key, value } of f.platformSecrets) if (value && isPlaceholder(value)) problem(key, "still a placeholder");
  const placeholders = (f.appSecrets ?? []).filter((s) => isPlaceholder(s.value)).map((s) => `${s.where}: appSecret is still a placeholder`);
  if (placeholders.length > 0) problem("APPS_FILE", placeholders.join("; "));
  if (!f.accessTokenRouteKey && !f.accessTokenRoutePublic) {
    problem(
      "ACCESS_TOKEN_ROUTE_KEY",
      "required in production (or set ACCESS_TOKEN_ROUTE_PUBLIC=true to expose platform access tokens deliberately)",
    );
  }
  if (f.accessTokenRouteKey && isPlaceholder(f.accessTokenRouteKey)) problem("ACCESS_TOKEN_ROUTE_KEY", "still a placeholder");
  if (f.exposeSessionKey === true && !f.exposeSessionKeyConfirmed) {
    problem(
      "EXPOSE_SESSION_KEY",
      "true sends every player's platform session_key to the client; production leaves it out (the server keeps it). Set EXPOSE_SESSION_KEY_CONFIRMED=true to send it deliberately",
    );
  }
  for (const [key, wheres] of groupByKey(f.giftPushesWithoutAesKey ?? [])) {
    problem(
      key,
      `${wheres.join(", ")}: required in production where a WeChat gift-push Token is set. Gift pushes are accepted in safe mode only ` +
        "(in plain mode the signature does not cover the body, so anyone holding one push URL could claim any pack): set the " +
        "console's message push to safe mode and its EncodingAESKey here",
    );
  }
  return problems;
}

function groupByKey(entries: Array<{ key: string; where: string }>): Map<string, string[]> {
  const grouped = new Map<string, string[]>();
  for (const { key, where } of entries) grouped.set(key, [...(grouped.get(key) ?? []), where]);
  return grouped;
}

/** arena.env ships with "change-me" in every value an operator must fill in; production refuses them all. */
export function placeholderProblems(env: Env, knownKeys: readonly string[]): SettingProblem[] {
  if (env.NODE_ENV !== "production") return [];
  return knownKeys.filter((key) => /change[-_]?me/i.test(env[key] ?? "")).map((key) => ({ key, message: "still the arena.env placeholder" }));
}

export function isPlaceholder(value: string): boolean {
  return PLACEHOLDER.test(value);
}

function isWeakSecret(value: string): boolean {
  return Buffer.byteLength(value, "utf8") < MIN_SECRET_BYTES || isPlaceholder(value) || value === DEV_JWT_SECRET;
}
