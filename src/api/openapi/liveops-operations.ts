/** The API description's LiveOps operation: GET /api/config (docs/liveops.md). */
import { z } from "zod";
import * as s from "../schemas";
import * as cl from "../../console/console-liveops";
import { consoleErrorFields } from "../../console/console-schemas";
import type { ErrorCode } from "../../core/errors";
import { CONSOLE_SIGNED_IN } from "./console-operations";
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
  const window = { startsAt: z.string().nullable(), endsAt: z.string().nullable() };
  register(
    "ConsoleLiveOpsResponse",
    s.okEnvelope(
      z.strictObject({
        app: z.string(),
        version: version(),
        by: z.string().nullable().describe("Who published the version in use (null: the settings')"),
        at: z.string().nullable(),
        definitions: z.record(z.string(), z.unknown()).describe("The running definitions as in docs/liveops.md"),
        events: z.array(z.strictObject({ eventId: z.string(), name: z.string(), schedule: z.record(z.string(), z.unknown()).nullable(), ...window, active: z.boolean(), finished: z.boolean() })).describe("Each event's running or next occurrence"),
        experiments: z.array(z.strictObject({ experimentId: z.string(), ...window, running: z.boolean() })),
      }),
    ),
  );
  register("ConsoleLiveOpsHistoryResponse", s.okEnvelope(z.strictObject({ app: z.string(), current: version(), versions: z.array(z.strictObject({ appId: z.string(), version: version(), by: z.string(), at: z.string() })) })));
  register("ConsoleLiveOpsVersionResponse", s.okEnvelope(z.strictObject({ app: z.string(), version: version(), by: z.string().nullable(), at: z.string().nullable(), definitions: z.unknown() })));
  register("ConsoleLiveOpsCheckResponse", s.okEnvelope(z.strictObject({ app: z.string(), version: version(), problems: z.array(z.string()).describe("Every problem; none: it would publish") })));
  register("ConsoleLiveOpsPublishedResponse", s.okEnvelope(z.object({ app: z.string(), version: version(), experimentId: z.string().optional(), running: z.boolean().optional() })));
}

function version() {
  return z.int().min(0).max(2_000_000_000).meta({ example: 3 });
}

const SIGNED_IN: ErrorCode[] = [...CONSOLE_SIGNED_IN, "invalid_request", "unknown_app"];
const CHANGE: ErrorCode[] = [...SIGNED_IN, "console_csrf_invalid", "console_https_required", "version_conflict"];

/** The console's LiveOps screen (src/console/console-liveops.ts). */
export function consoleLiveOpsOperations(consoleTag: string): OperationSpec[] {
  const read = { tag: consoleTag, security: "console" as const, errorFields: consoleErrorFields };
  const change = { tag: consoleTag, security: "consoleChange" as const, errorFields: consoleErrorFields };
  const app = { schema: cl.liveopsChangeBody.pick({ app: true }), examples: { app: "default" } };
  return [
    { ...read, method: "get", path: "/console/api/liveops", operationId: "consoleLiveOps", summary: "An app's running LiveOps definitions, each event's running or next occurrence", description: "", query: app, success: { status: 200, component: "ConsoleLiveOpsResponse", description: "The version in use" }, errors: SIGNED_IN },
    { ...read, method: "get", path: "/console/api/liveops/versions", operationId: "consoleLiveOpsHistory", summary: "The app's stored LiveOps versions, newest first", description: "`before` pages to older ones.", query: { schema: cl.liveopsHistoryQuery, examples: { app: "default", limit: "50" } }, success: { status: 200, component: "ConsoleLiveOpsHistoryResponse", description: "The history" }, errors: SIGNED_IN },
    { ...read, method: "get", path: "/console/api/liveops/versions/{version}", operationId: "consoleLiveOpsVersion", summary: "One LiveOps version's content", description: "0 is the settings'.", pathParams: { schema: cl.liveopsVersionParam, examples: {} }, query: app, success: { status: 200, component: "ConsoleLiveOpsVersionResponse", description: "The version" }, errors: [...SIGNED_IN, "liveops_version_not_found"] },
    { ...read, method: "post", path: "/console/api/liveops/check", operationId: "consoleLiveOpsCheck", summary: "Every problem new definitions would be refused for", description: "Nothing is stored.", body: { schema: cl.liveopsDefinitionsBody, examples: { check: { app: "default", definitions: { flags: [{ key: "boss_hp", default: 1000 }] } } } }, success: { status: 200, component: "ConsoleLiveOpsCheckResponse", description: "The problems" }, errors: SIGNED_IN },
    { ...change, method: "post", path: "/console/api/liveops/publish", operationId: "consoleLiveOpsPublish", summary: "Publish definitions as the app's next version (admin)", description: "Checked whole (every problem at once: 422 `liveops_invalid`, nothing stored); every process serves it within LIVEOPS_REFRESH_MS and rooms are told (`configChanged`). `expectedVersion`: the version edited. Audited as `liveops.publish`.", body: { schema: cl.liveopsPublishBody, examples: { publish: { app: "default", expectedVersion: 0, definitions: { flags: [{ key: "boss_hp", default: 1000 }] } } } }, success: { status: 200, component: "ConsoleLiveOpsPublishedResponse", description: "The new version" }, errors: [...CHANGE, "liveops_invalid"] },
    { ...change, method: "post", path: "/console/api/liveops/versions/{version}/rollback", operationId: "consoleLiveOpsRollback", summary: "Publish an older version's content again as the next version (admin)", description: "Audited as `liveops.rollback`.", pathParams: { schema: cl.liveopsVersionParam, examples: {} }, body: { schema: cl.liveopsChangeBody, examples: { rollback: { app: "default", expectedVersion: 4 } } }, success: { status: 200, component: "ConsoleLiveOpsPublishedResponse", description: "The new version" }, errors: [...CHANGE, "liveops_invalid", "liveops_version_not_found"] },
    ...(["start", "stop"] as const).map((action): OperationSpec => ({
      ...change,
      method: "post",
      path: `/console/api/liveops/experiments/{experimentId}/${action}`,
      operationId: `consoleLiveOpsExperiment${action === "start" ? "Start" : "Stop"}`,
      summary: action === "start" ? "Start an experiment now, with no end, as the next version (admin)" : "Stop an experiment now, as the next version (admin)",
      description: `Players keep their stored variants. 400 when it is ${action === "start" ? "already running" : "not running"}. Audited as \`liveops.experiment_${action}\`.`,
      pathParams: { schema: cl.liveopsExperimentParam, examples: {} },
      body: { schema: cl.liveopsChangeBody, examples: { [action]: { app: "default", expectedVersion: 1 } } },
      success: { status: 200, component: "ConsoleLiveOpsPublishedResponse", description: "The new version" },
      errors: [...CHANGE, "liveops_invalid"],
    })),
  ];
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
