/**
 * The runtime's subscribe prompt (`wx.requestSubscribeMessage`, Douyin's and QQ's of the same name):
 * the player allows one message per template and acceptance, which the server later sends
 * (`POST /api/minigame/<platform>/subscribe_message` from the studio's systems, or a room). The answer
 * goes to the game only: whether to tell a server is the game's decision.
 */
import type { PlatformName } from "./runtime";

/** What the player chose for one template (WeChat: accept, reject, ban; filter: the template was filtered out). */
export type SubscribeDecision = "accept" | "reject" | "ban" | "filter";
export type SubscribeGrants = Record<string, SubscribeDecision>;

/** The prompt as the runtimes expose it; absent on runtimes without one. */
export interface SubscribePromptApi {
  requestSubscribeMessage?(options: {
    tmplIds: string[];
    success?(result: Record<string, unknown>): void;
    fail?(error: { errMsg?: string; errCode?: number }): void;
  }): unknown;
}

/** WeChat shows at most 3 templates per prompt (Douyin's limit is assumed to be the same). */
export const MAX_TEMPLATES_PER_PROMPT = 3;

const DECISIONS: readonly string[] = ["accept", "reject", "ban", "filter"];

/**
 * Shows the prompt for `templateIds` and resolves each one's decision. WeChat only shows it from a
 * tap handler: call it in one. A template the answer omits counts as rejected.
 */
export function promptSubscribe(api: SubscribePromptApi, platform: PlatformName, templateIds: string[]): Promise<SubscribeGrants> {
  const prompt = api.requestSubscribeMessage?.bind(api);
  if (!prompt) return Promise.reject(new Error(`${platform} has no subscribe prompt`));
  if (templateIds.length === 0 || templateIds.length > MAX_TEMPLATES_PER_PROMPT || templateIds.some((id) => typeof id !== "string" || !id)) {
    return Promise.reject(new Error(`requestSubscribe takes 1–${MAX_TEMPLATES_PER_PROMPT} template ids`));
  }
  return new Promise((resolve, reject) => {
    prompt({
      tmplIds: templateIds,
      success: (result) => {
        const grants: SubscribeGrants = {};
        for (const id of templateIds) grants[id] = DECISIONS.includes(String(result?.[id])) ? (result[id] as SubscribeDecision) : "reject";
        resolve(grants);
      },
      fail: (error) => reject(new Error(`${platform} subscribe prompt failed: ${error?.errMsg ?? "unknown"}${error?.errCode ? ` (${error.errCode})` : ""}`)),
    });
  });
}
