/**
 * What the registry-driven suites need to know about a platform, derived from its module, so a new
 * platform is tested by the same suites without editing them.
 */
import type { PlatformDefinition } from "../../src/platforms/platform";
import { platformDefinitions } from "../../src/platforms/registry";

export { platformDefinitions };

/** `/api/minigame/<name>/login?<main code param>=<code>` */
export function loginPath(platform: Pick<PlatformDefinition, "name" | "codeParams">, code: string): string {
  return `/api/minigame/${platform.name}/login?${new URLSearchParams({ [platform.codeParams[0]]: code })}`;
}

type Outcome = "invalid" | "blocked" | "ratelimited" | "busy";

const CLASSES: Record<Outcome, { status: number; code: string }> = {
  invalid: { status: 401, code: "platform_code_invalid" },
  blocked: { status: 403, code: "platform_user_blocked" },
  ratelimited: { status: 429, code: "platform_rate_limited" },
  busy: { status: 502, code: "platform_unavailable" },
};

/** The answer a simulator code prefix must get, after the platform's own substitutions (`answersAs`). */
export function expectedClass(platform: PlatformDefinition, outcome: Outcome): { status: number; code: string } {
  const substitute = outcome === "blocked" || outcome === "ratelimited" ? platform.simulator.answersAs?.[outcome] : undefined;
  return CLASSES[substitute ?? outcome];
}

let seq = 0;
/** A fresh player name per use, so tests never share users or codes. */
export const freshPlayer = (label: string) => `${label}${Date.now().toString(36)}p${seq++}`;
