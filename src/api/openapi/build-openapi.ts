/**
 * The OpenAPI 3.1 description, generated from the same zod schemas that validate requests and
 * from the platform registry, so a new platform or a changed constraint shows up without edits.
 */
import { z } from "zod";
import { ERROR_CODES, type ErrorCode } from "../../core/errors";
import type { PlatformDefinition } from "../../platforms/platform";
import { packageVersion } from "../../config/package-version";
import * as s from "../schemas";
import { accountOperations } from "./account-operations";
import { API_DESCRIPTION } from "./descriptions";
import { clean, componentName, operationObject, type Json, type OperationSpec } from "./operation-spec";
import { platformOperations } from "./platform-operations";
import { economyOperations, registerEconomyComponents } from "./economy-operations";
import { consoleLiveOpsOperations, liveopsOperations, registerLiveOpsComponents } from "./liveops-operations";
import { paymentOperations, registerPaymentComponents } from "./payment-operations";
import { registerRewardComponents, rewardOperations } from "./reward-operations";
import { GROWTH_TAG, growthOperations, registerGrowthComponents } from "./growth-operations";
import { registerSocialComponents, socialOperations } from "./social-operations";
import { leaderboardOperations, registerLeaderboardComponents } from "./leaderboard-operations";
import { registerSaveComponents, saveOperations } from "./saves-operations";
import { consoleDouyinLiveOperations, registerConsoleDouyinLiveComponents } from "./console-douyin-live-operations";
import { DOUYIN_LIVE_TAG, douyinLiveOperations, registerDouyinLiveComponents } from "./douyin-live-operations";
import { CONSOLE_TAG, consoleOperations, registerConsoleComponents } from "./console-operations";
import { analyticsOperations, registerAnalyticsComponents } from "./analytics-operations";

export interface OpenApiOptions {
  platforms: readonly PlatformDefinition[];
  /** Registration refuses this email domain, so the register schema depends on it. */
  placeholderEmailDomain: string;
  /** DOUYIN_LIVE_PUSH_PATH when DOUYIN_LIVE_ENABLED: the live routes are described only where served. */
  douyinLivePushPath?: string;
}

export function buildOpenApiDocument(options: OpenApiOptions): Json {
  const registry = z.registry<{ id: string }>();
  const register = (id: string, schema: z.ZodType) => registry.add(schema, { id });
  register("User", s.userSchema);
  register("TokenPair", s.tokenPairSchema);
  register("Session", s.sessionSchema);
  register("PlatformAccessToken", s.platformAccessTokenSchema);
  register("UserResponse", s.okEnvelope(s.userSchema));
  register("MeResponse", s.okEnvelope(s.meSchema));
  register("SessionResponse", s.okEnvelope(s.sessionSchema));
  register("TokenPairResponse", s.okEnvelope(s.tokenPairSchema));
  register("PlatformAccessTokenResponse", s.okEnvelope(s.platformAccessTokenSchema));
  register("LogoutResponse", s.okEnvelope(s.emptyDataSchema));
  register("DeletedResponse", s.okEnvelope(s.nullDataSchema));
  register("DecryptedDataResponse", s.okEnvelope(s.decryptedDataSchema));
  register("ValidityResponse", s.okEnvelope(s.validitySchema));
  register("PhoneNumberResponse", s.okEnvelope(s.phoneNumberSchema));
  const allCodes = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];
  register("Error", s.errorEnvelope(allCodes).describe("Every failure; each operation lists the codes it can return"));

  const operations: OperationSpec[] = [];
  for (const platform of options.platforms) {
    const data = s.platformLoginDataSchema(platform.emptyResponseFields());
    register(`${componentName(platform)}LoginData`, data);
    register(`${componentName(platform)}LoginResponse`, s.okEnvelope(data));
    operations.push(...platformOperations(platform));
  }
  operations.push(...accountOperations(options.placeholderEmailDomain));
  registerSocialComponents(register);
  operations.push(...socialOperations(options.platforms));
  registerPaymentComponents(register);
  operations.push(...paymentOperations(options.platforms));
  registerEconomyComponents(register);
  operations.push(...economyOperations());
  registerLiveOpsComponents(register);
  operations.push(...liveopsOperations(), ...consoleLiveOpsOperations(CONSOLE_TAG));
  registerLeaderboardComponents(register);
  operations.push(...leaderboardOperations());
  registerSaveComponents(register);
  operations.push(...saveOperations());
  registerRewardComponents(register);
  operations.push(...rewardOperations(options.platforms));
  registerGrowthComponents(register);
  operations.push(...growthOperations(options.platforms));
  if (options.douyinLivePushPath) {
    registerDouyinLiveComponents(register);
    operations.push(...douyinLiveOperations(options.douyinLivePushPath));
    registerConsoleDouyinLiveComponents(register);
    operations.push(...consoleDouyinLiveOperations(CONSOLE_TAG));
  }
  registerConsoleComponents(register);
  operations.push(...consoleOperations());
  registerAnalyticsComponents(register);
  operations.push(...analyticsOperations(CONSOLE_TAG));

  const components = z.toJSONSchema(registry, { uri: (id) => `#/components/schemas/${id}` });
  const schemas = Object.fromEntries(Object.entries(components.schemas).map(([id, schema]) => [id, clean(schema as Json)]));

  const paths: Record<string, Record<string, Json>> = {};
  for (const op of operations) (paths[op.path] ??= {})[op.method] = operationObject(op);

  return {
    openapi: "3.1.0",
    info: { title: "Mini-game login and room server", version: packageVersion(), description: API_DESCRIPTION },
    externalDocs: { url: "/api-docs/reference", description: "The rules every route follows, and every error code" },
    // Relative, so "Try it out" calls whichever origin serves the page.
    servers: [{ url: "/", description: "This server" }],
    tags: [
      { name: "Mini-game login", description: "Log a player in with a code from their platform; no token needed" },
      { name: "Platform access tokens", description: "The app-level platform credential, for other servers of ours" },
      { name: "Player data", description: "What the server does with the player's platform session key, which it keeps. Bearer token required" },
      { name: "Accounts", description: "Username/email accounts, token refresh and logout" },
      { name: "Users", description: "The logged-in user. Bearer token required" },
      { name: "Payments", description: "Coins, orders and item purchases, each delivered once (docs/payments.md)" },
      { name: "Economy", description: "The catalog, wallets, inventories and soft-currency purchases, each granted once (docs/economy.md)" },
      { name: "LiveOps", description: "Remote config, experiments and live events decided by the server (docs/liveops.md)" },
      { name: "Leaderboards", description: "Boards and tournaments of the token's app: ranks, periods, season rewards (docs/leaderboards.md)" },
      { name: "Saves", description: "Players' game data kept by the server, versioned, with permissions (docs/saves.md)" },
      { name: "Rewards", description: "Rewarded ads, gift packs and codes, mail: each granted once (docs/economy-rewards.md)" },
      { name: "Analytics", description: "The player's own events for analytics; the server records its facts itself (docs/analytics.md)" },
      GROWTH_TAG,
      ...(options.douyinLivePushPath ? [{ name: DOUYIN_LIVE_TAG, description: "Live-stream games: the streamer's launch and Douyin's pushes (docs/douyin-live.md)" }] : []),
      { name: CONSOLE_TAG, description: "The operator console's JSON routes at /console/api: operator session cookie, CSRF token on changes, roles, audited (docs/console.md)" },
    ],
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "`data.token` of any login, register, refresh or password change. Only the latest session's token works.",
        },
        consoleSession: {
          type: "apiKey",
          in: "cookie",
          name: "arena_console",
          description: "The console's session cookie, set by POST /console/api/session (HttpOnly: a browser sends it, scripts cannot read it)",
        },
        consoleCsrf: {
          type: "apiKey",
          in: "header",
          name: "X-CSRF-Token",
          description: "The session's `csrfToken` (from sign-in or GET /console/api/session), required on every console change",
        },
        internalKey: {
          type: "apiKey",
          in: "header",
          name: "X-Internal-Key",
          description: "Required on the access-token routes when the server sets ACCESS_TOKEN_ROUTE_KEY",
        },
      },
    },
  };
}
