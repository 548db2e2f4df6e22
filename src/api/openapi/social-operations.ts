/** The API description's social operations: player storage (friend rankings) and subscribe messages. */
import { z } from "zod";
import type { PlatformDefinition } from "../../platforms/platform";
import * as s from "../schemas";
import * as social from "../social-schemas";
import { AUTH_ERRORS, type OperationSpec } from "./operation-spec";

export function registerSocialComponents(register: (id: string, schema: z.ZodType) => void): void {
  register("StoredResponse", s.okEnvelope(s.emptyDataSchema));
  register("SubscribeSentResponse", s.okEnvelope(social.subscribeSentSchema));
}

const STORAGE_NOTE =
  "Written on the platform of the player's latest login to the token's app (WeChat `set_user_storage`, Douyin its " +
  "equivalent), signed with the session key the server kept from that login: what the game's open-data context reads for " +
  "friend rankings. The platform's limits are checked first, with no platform call: at most 128 keys per player, a key " +
  "of at most 128 bytes and key + value of at most 1024 bytes (UTF-8), a ranking value `{\"wxgame\": {\"score\": <int>, " +
  "\"update_time\": <unix s>}}` (Douyin `ttgame`) → 400 `invalid_request` naming the entry. No kept key → 409 " +
  "`session_key_missing`; the platform no longer accepts the key (the player logged in again elsewhere) → 409 " +
  "`session_key_rejected`: log in again. A request body is at most 16 KB: write larger sets in several requests. " +
  "Limited per user (RATE_LIMIT_USER_MAX). Platforms without player storage (QQ, Kuaishou) answer 404 `route_not_found`.";

const PLATFORM_ERRORS = ["platform_rate_limited", "platform_misconfigured", "platform_unavailable"] as const;

export function socialOperations(platforms: readonly PlatformDefinition[]): OperationSpec[] {
  const storageErrors = [...AUTH_ERRORS, "session_key_missing", "session_key_rejected", "route_not_found", "rate_limited", ...PLATFORM_ERRORS] as const;
  // Failures the platform answered keep its numbers, from whichever platform the player's session is on.
  const names = platforms.map((p) => p.name) as [string, ...string[]];
  const errorFields = { ...s.platformTokenErrorFields(names[0]), platform: z.enum(names).optional() };
  const ops: OperationSpec[] = [
    {
      method: "put",
      path: "/api/players/me/storage",
      operationId: "putPlayerStorage",
      tag: "Player data",
      summary: "Write the player's hosted storage (friend rankings)",
      description: `Adds or replaces entries. ${STORAGE_NOTE} Storage full on the platform → 409 \`player_storage_full\`.`,
      security: "bearer",
      body: {
        schema: social.storagePutBody,
        examples: { ranking: { kvList: [{ key: "score", value: '{"wxgame":{"score":42,"update_time":1735689600}}' }] } },
      },
      success: { status: 200, component: "StoredResponse", description: "The platform accepted every entry" },
      errors: [...storageErrors, "player_storage_full"],
      errorFields,
    },
    {
      method: "delete",
      path: "/api/players/me/storage",
      operationId: "deletePlayerStorage",
      tag: "Player data",
      summary: "Remove keys from the player's hosted storage",
      description: `${STORAGE_NOTE} A key the player does not have → 400 \`invalid_request\` (the platform removes nothing then).`,
      security: "bearer",
      body: { schema: social.storageDeleteBody, examples: { keys: { keys: ["score"] } } },
      success: { status: 200, component: "StoredResponse", description: "Removed" },
      errors: [...storageErrors],
      errorFields,
    },
  ];
  for (const platform of platforms) {
    if (!platform.social?.subscribeMessages) continue;
    ops.push({
      method: "post",
      path: `/api/minigame/${platform.name}/subscribe_message`,
      operationId: `${platform.name}SubscribeMessage`,
      tag: "Platform access tokens",
      summary: `Send a ${platform.displayName} subscribe message to a player`,
      description:
        "For the studio's other servers; guarded like the access-token routes (`X-Internal-Key` when ACCESS_TOKEN_ROUTE_KEY " +
        "is set). Sends one template message to the player's openid on the app `appId` names (default app without), using " +
        "one of the grants the player gave in the game (`requestSubscribe`). The player has no unused grant of the template " +
        "→ 409 `subscribe_not_granted`: not worth retrying; ask in the game again. The platform refuses the template, page " +
        "or data → 422 `subscribe_invalid`: an operator's mistake. Unknown user → 403 `user_disabled`. " +
        "Every send is counted in `subscribe_messages_total` by result. With the simulator, grant first with " +
        "`POST /__simulator/subscribe-grant`; a template id starting with `invalid` is refused.",
      security: "internalKey",
      query: { also: s.appIdQuery, examples: {} },
      body: {
        schema: social.subscribeMessageBody,
        examples: { ready: { userId: "<user.id>", templateId: "tpl-match-ready", page: "pages/index?from=notice", data: { thing1: "Your match is ready" } } },
      },
      success: { status: 200, component: "SubscribeSentResponse", description: "Delivered to the platform" },
      errors: ["internal_key_invalid", "unknown_app", "user_disabled", "subscribe_not_granted", "subscribe_invalid", ...PLATFORM_ERRORS],
      errorFields: s.platformTokenErrorFields(platform.name),
    });
  }
  return ops;
}
