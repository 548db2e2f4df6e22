import { liveopsRoutes } from "./liveops-routes";
import type express from "express";
import { Router, type RequestHandler } from "express";
import type { Services } from "../services/services";
import { AppError } from "../core/errors";
import { allowedMethods } from "./allowed-methods";
import { authRoutes, userRoutes, type AccountRouteDeps } from "./account-routes";
import { errorHandler, notFoundHandler } from "./error-handler";
import { minigameRoutes } from "./minigame-routes";
import { playerDataRoutes } from "./player-data-routes";
import { economyRoutes } from "./economy-routes";
import { paymentRoutes } from "./payment-routes";
import { douyinFeedRoutes } from "./douyin-feed-routes";
import { douyinLivePushRoutes, douyinLiveSessionRoutes } from "./douyin-live-routes";
import { pushRoutes } from "./push-routes";
import { rewardPushRoutes } from "./reward-push-routes";
import { adRoutes, giftCodeRoutes, mailRoutes } from "./reward-routes";
import { growthRoutes } from "./growth-routes";
import { playerStorageRoutes, subscribeMessageRoutes } from "./social-routes";
import { requestContext, trackRequest } from "./request-context";
import { leaderboardRoutes } from "./leaderboard-routes";
import { saveRoutes } from "./saves-routes";
import { HotRoutes } from "./hot-routes";
import { API_JSON_LIMIT, jsonBodyReader } from "./body-rules";
import { PUSH_MAX_SKEW_SEC } from "../platforms/wechat/wechat-push";
import { PushNonces } from "../services/push-nonces";
import { analyticsRoutes } from "./analytics-routes";

/**
 * `/api` on the app: the hottest routes by exact path at the front (hot-routes.ts; the table is filled
 * as the routers are mounted), then the router. Returns the table: the server's node:http front
 * (src/server/hot-front.ts) serves the same entries before Express is entered.
 */
export function mountApi(app: express.Express, services: Services): HotRoutes {
  const readBody = jsonBodyReader(API_JSON_LIMIT);
  const hot = new HotRoutes("/api", readBody, (req, res, route) => trackRequest(services.logger, services.metrics, req, res, () => route));
  app.use(hot.middleware());
  app.use("/api", createApiRouter(services, hot, readBody));
  return hot;
}

/**
 * Everything under `/api`. Public routers (which issue tokens) are mounted apart from protected
 * ones, so a new protected route cannot become public by accident. `readBody` reads the JSON
 * bodies (body-rules.ts); the hot table's POSTs take the same one.
 */
export function createApiRouter(services: Services, hot?: HotRoutes, readBody: RequestHandler = jsonBodyReader(API_JSON_LIMIT)): Router {
  const api = Router();
  api.use(requestContext(services.logger, services.metrics, api));
  // Item-purchase pushes come before the JSON parser: they read their own body and answer in WeChat's shape.
  const pushes = { nonces: new PushNonces(services.cache, PUSH_MAX_SKEW_SEC), logger: services.logger, refused: services.metrics.pushRefused.bind(services.metrics) };
  api.use("/minigame", pushRoutes({ ...pushes, platforms: services.platformDefinitions, pushApps: services.payments.pushApps, operations: services.payments.operations }));
  // So are the reward sources' callbacks (rewarded ads, gift pushes): their own bodies, their platform's answers.
  api.use(
    "/minigame",
    rewardPushRoutes({ ...pushes, platforms: services.platformDefinitions, rewardApps: services.rewardSources.rewardApps, ads: services.rewardSources.ads, gifts: services.rewardSources.gifts, support: services.support }),
  );
  // Douyin's feed direct-play call: its own query signature and answer shape (douyin-feed-routes.ts).
  if (services.platformDefinitions.some((p) => p.name === "douyin")) {
    const feed = services.config.growth.douyinFeed;
    api.use(
      "/minigame",
      douyinFeedRoutes({
        feedApp: (appId) => {
          const entry = services.platformApps.appsOf("douyin").find((e) => e.appId === appId);
          return entry && Object.hasOwn(feed.secrets, appId) ? { app: entry.app, secret: feed.secrets[appId] } : undefined;
        },
        feed: services.growth.douyinFeed,
        logger: services.logger,
        refused: (reason) => services.metrics.pushRefused("douyin", "feed", reason),
        nowSec: () => Math.floor(Date.now() / 1000),
      }),
    );
  }
  // Douyin live pushes too: the signature covers the raw body (douyin-live-routes.ts).
  const live = services.douyinLive;
  if (live) api.use(douyinLivePushRoutes({ pushPath: live.pushPath, secrets: live.secrets, intake: live.intake, sessions: live.sessions, logger: services.logger, refused: (reason) => services.metrics.pushRefused("douyin", "live", reason) }));
  // Saved objects are larger than any other body: their routes' own limit (SAVES_MAX_REQUEST_BYTES).
  const readSaveBody = jsonBodyReader(services.config.saves.maxRequestBytes);
  api.use((req, res, next) => {
    // Express answers HEAD with the GET handler, and a GET here can log in (consuming the player's
    // one-time code) or fetch a platform token. HEAD does neither: 405, whatever the route.
    if (req.method === "HEAD") return next(new AppError("method_not_allowed", { headers: { Allow: "GET" } }));
    // A preflight never gets here (the edge answers it). Any other OPTIONS gets the envelope: 405
    // with the path's methods in Allow, or 404 where no route is, like every other method.
    if (req.method === "OPTIONS") return next(refuseOptions(api, req.path));
    // GETs carry no body: the hottest routes skip the parser.
    if (req.method === "GET") return next();
    (req.path.startsWith("/saves/") ? readSaveBody : readBody)(req, res, next);
  });

  const limits = { windowSec: services.config.rateLimit.windowSec, ipMax: services.config.rateLimit.ipMax };
  api.use(
    "/minigame",
    minigameRoutes({
      platforms: services.platformDefinitions,
      apps: services.platformApps,
      login: services.login,
      platformTokens: services.platformTokens,
      internalKey: services.config.accessTokenRoute.key,
      limiter: services.limiter,
      limits,
      hot,
    }),
  );
  api.use(
    "/minigame",
    playerDataRoutes({
      platforms: services.platformDefinitions,
      sessions: services.sessions,
      playerData: services.playerData,
      limiter: services.limiter,
      limits: { windowSec: services.config.rateLimit.windowSec, userMax: services.config.rateLimit.userMax },
    }),
  );
  api.use(
    "/minigame",
    subscribeMessageRoutes({
      platforms: services.platformDefinitions,
      apps: services.platformApps,
      subscribe: services.subscribeMessages,
      internalKey: services.config.accessTokenRoute.key,
    }),
  );
  api.use(
    "/players",
    playerStorageRoutes({
      sessions: services.sessions,
      storage: services.playerStorage,
      limiter: services.limiter,
      limits: { windowSec: services.config.rateLimit.windowSec, userMax: services.config.rateLimit.userMax },
    }),
  );

  api.use(
    "/payments",
    paymentRoutes({
      sessions: services.sessions,
      payments: services.payments.payments,
      resolvePlayer: services.payments.resolvePlayer,
      paymentsEnabled: services.payments.paymentsEnabled,
      itemPurchaseApps: services.payments.itemPurchaseApps,
      limiter: services.limiter,
      limits: { windowSec: services.config.rateLimit.windowSec, userMax: services.config.rateLimit.userMax },
      // An orderId already recorded is a replay: priced by the order's own terms, whatever the catalog
      // says now; the request's item and quantity go on, so another one is 409 order_conflict.
      priceOrder: async (app, userId, body) => {
        const existing = await services.payments.ledger.findByOrderId(userId, body.orderId);
        const quantity = body.quantity ?? 1;
        if (existing) return { itemId: body.itemId, quantity, coins: body.coins ?? (existing.unitPrice != null ? existing.unitPrice * quantity : existing.coins) };
        return services.economy.orders.price(app, userId, body);
      },
    }),
  );

  api.use(
    economyRoutes({
      sessions: services.sessions,
      catalogs: services.economy.catalogs,
      shop: services.economy.shop,
      limiter: services.limiter,
      limits: { windowSec: services.config.rateLimit.windowSec, userMax: services.config.rateLimit.userMax },
    }),
  );

  if (live) api.use(douyinLiveSessionRoutes({ sessions: live.sessions }));
  api.use(liveopsRoutes({ sessions: services.sessions, liveops: services.liveops, hot }));
  api.use(leaderboardRoutes({ sessions: services.sessions, leaderboards: services.leaderboards, limiter: services.limiter }));
  api.use(
    saveRoutes({
      sessions: services.sessions,
      saves: services.saves,
      limiter: services.limiter,
      limits: { windowSec: services.config.rateLimit.windowSec, userMax: services.config.rateLimit.userMax },
    }),
  );
  const rewardDeps = {
    sessions: services.sessions,
    mail: services.rewardSources.mail,
    ads: services.rewardSources.ads,
    giftCodes: services.rewardSources.giftCodes,
    limiter: services.limiter,
    limits: { windowSec: services.config.rateLimit.windowSec, userMax: services.config.rateLimit.userMax },
  };
  api.use(analyticsRoutes({ ...rewardDeps, clientEvents: services.analytics.clientEvents }));
  api.use(mailRoutes(rewardDeps));
  api.use(adRoutes(rewardDeps));
  api.use(giftCodeRoutes(rewardDeps));
  api.use(growthRoutes({ ...rewardDeps, sidebar: services.growth.sidebar, riskRanks: services.growth.riskRanks, wechatOpenData: services.growth.wechatOpenData, shares: services.growth.shares }));

  const accountDeps: AccountRouteDeps = {
    accounts: services.accounts,
    sessions: services.sessions,
    limiter: services.limiter,
    limits,
    placeholderEmailDomain: services.config.placeholderEmailDomain,
    appIdentities: services.appIdentities,
  };
  api.use("/auth", authRoutes({ ...accountDeps, hot }));
  api.use("/users", userRoutes({ ...accountDeps, hot }));

  api.use(notFoundHandler);
  api.use(errorHandler(services.logger));
  return api;
}

function refuseOptions(api: Router, path: string): AppError | undefined {
  // HEAD is refused under /api whatever the route (above), so it is never offered.
  const methods = allowedMethods(api, path).filter((m) => m !== "HEAD" && m !== "OPTIONS");
  return methods.length > 0 ? new AppError("method_not_allowed", { headers: { Allow: methods.join(", ") } }) : undefined;
}
