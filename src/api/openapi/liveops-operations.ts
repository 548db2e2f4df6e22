/** The API description's LiveOps operation: GET /api/config (docs/liveops.md). */
import { z } from "zod";
import * as s from "../schemas";
import { AUTH_ERRORS, type OperationSpec } from "./operation-spec";

const playerConfigSchema = z.strictObject({
  version: z.int().min(0).max(2_000_000_000).meta({ description: "The app's definitions version (0: the settings'); each publish adds 1", example: 3 }),
  flags: z.record(z.string(), z.unknown()).meta({ description: "Every flag's value for this player: experiment variant > live event > audience value > default", example: { welcome_text: "Welcome!", ad_reward_multiplier: 2 } }),
  experiments: z.array(z.strictObject({ experimentId: z.string(), variant: z.string() })).describe("The running experiments the player takes part in, with their variant (never chosen by the client)"),
  events: z
    .array(z.strictObject({ eventId: z.string(), name: z.string(), startsAt: z.string().nullable(), endsAt: z.string().nullable(), active: z.boolean() }))
    .describe("Active and upcoming live events of the player's audiences (the current or next occurrence of a repeating one); null: open"),
});

export function registerLiveOpsComponents(register: (id: string, schema: z.ZodType) => void): void {
  register("PlayerConfig", playerConfigSchema);
  register("PlayerConfigResponse", s.okEnvelope(playerConfigSchema));
}

export function liveopsOperations(): OperationSpec[] {
  return [
    {
      method: "get",
      path: "/api/config",
      operationId: "getConfig",
      tag: "LiveOps",
      summary: "What the player gets from LiveOps now: flags, experiment variants, live events",
      description:
        "Decided by the server for the player of the token (audiences, stored experiment assignments, the events' schedules). " +
        "The answer has an `ETag`; sent back in `If-None-Match`, the answer is 304 with no body while nothing changed for the " +
        "player. The client may report its version in `X-App-Version` (or `?appVersion=`, semver) for audiences on it. A " +
        "published change is served within LIVEOPS_REFRESH_MS.",
      security: "bearer",
      query: { schema: z.object({ appVersion: z.string().optional().describe("The client's version (semver), e.g. 1.4.0") }), examples: {} },
      success: { status: 200, component: "PlayerConfigResponse", description: "`data`: the player's config" },
      errors: [...AUTH_ERRORS, "invalid_request"],
    },
  ];
}
