/**
 * The server definition: rooms, Express routes and server options. It never listens; `index.ts`
 * does, and tests boot this same definition with @colyseus/testing.
 */
import config from "@colyseus/tools";
import { describeUserStore } from "../adapters/store/describe-user-store";
import { matchMaker, type Server } from "@colyseus/core";
import type express from "express";
import type http from "node:http";
import { mountApi } from "../api/api-router";
import { opsRoutes } from "../api/ops-routes";
import { buildOpenApiDocument } from "../api/openapi/build-openapi";
import { apiDocsRoutes } from "../api/openapi/docs-routes";
import { faviconRoutes } from "./favicon";
import type { AppConfig } from "../config/config";
import { describeApps } from "../config/settings/apps";
import { buildServices, type ServiceOverrides, type Services } from "./container";
import { answerTheRestWithEnvelope, applyEdgeRules } from "./express-edge";
import { HttpDrain } from "./http-drain";
import { bearWithAppPrototypes } from "./app-prototypes";
import { hotFront, type HotFront } from "./hot-front";
import { colyseusLogger } from "./colyseus-logger";
import { createSharedRooms } from "./shared-rooms";
import { matchmakeListener } from "./matchmake-handler";
import { guardRequests } from "./request-guard";
import { clientIpResolver, compileTrust } from "../net/client-ip";
import { CorsPolicy } from "../net/cors-policy";
import { createLogger, type Logger } from "../logging/logger";
import { playgroundRoutes } from "../playground/playground-routes";
import { playgroundSimulatorRoutes } from "../playground/playground-simulator-routes";
import { SessionKeyCustody } from "../services/session-key-custody";
import { SimulatorPlayerControls } from "../services/simulator-player-controls";
import { RoomTransport } from "./room-transport";
import { APP_FILTER } from "../../rooms/AuthenticatedRoom";
import { LobbyRoom } from "../../rooms/LobbyRoom";
import { MatchRoom } from "../../rooms/MatchRoom";
import { DOUYIN_LIVE_ROOM, DouyinLiveRoom, publishToLiveRoom, setDouyinLiveRoomServices } from "../../rooms/DouyinLiveRoom";
import { setRoomServices } from "../../rooms/room-services";
import { tellRoomsOfConfigChanges } from "../../rooms/config-changed";
import { RoomSessionGuard } from "../../rooms/session-guard";
import { deliverItem } from "../../rooms/deliver-item";
import { PlayerNotices } from "../../rooms/player-notices";
import { publicOrder } from "../services/payments/payment-service";
import { mountConsole } from "../console/console-wiring";
import { openOperatorStore } from "./operator-wiring";

/** WebSocket messages above this size are refused by the transport. */
export const MAX_WS_PAYLOAD_BYTES = 16 * 1024;

export interface AppOptions {
  logger?: Logger;
  overrides?: ServiceOverrides;
}

export interface App {
  /** What `listen()` and `@colyseus/testing`'s `boot()` take. */
  definition: ReturnType<typeof config>;
  /** The wired services, available once the server has booted. */
  services(): Services;
}

export function createApp(settings: AppConfig, options: AppOptions = {}): App {
  const logger = options.logger ?? createLogger({ level: settings.logLevel });
  let services: Services | undefined;
  let guard: RoomSessionGuard | undefined;
  let notices: PlayerNotices | undefined;
  let rewardNotices: PlayerNotices | undefined;
  let stopConfigNotices: (() => void) | undefined;
  let httpServer: http.Server | undefined;
  let draining = false;
  let closeConsole: (() => Promise<void>) | undefined;
  // With Redis, rooms and presence are shared by every process, and dead or returning hosts are
  // handled in the background (shared-rooms.ts, host-health.ts: what Colyseus 0.18 leaves to players).
  const sharedRooms = createSharedRooms(settings, logger);
  // One client-address rule and one CORS rule, for the API, matchmaking and the room sockets alike.
  const trust = compileTrust(settings.trustProxy);
  const clientIp = clientIpResolver(trust);
  const cors = new CorsPolicy(settings.corsOrigins);
  let expressApp: express.Express | undefined;
  let transport: RoomTransport | undefined;
  let drain: HttpDrain | undefined;
  let front: HotFront | undefined;

  /**
   * Once listening: the server's request listeners become ours. Colyseus 0.18 has added its router's
   * (matchmaking, and CORS reflecting any origin with credentials, for every request); ours answers
   * matchmaking (matchmake-handler.ts) and hands the rest to the Express app, both with CORS_ORIGINS.
   */
  const takeOverRequests = (server: http.Server) => {
    server.removeAllListeners("request");
    const matchmake = matchmakeListener({ clientIp, cors, logger, protocol: transport?.protocol, otherwise: (req, res) => expressApp!(req, res) });
    // The hot routes first, before Express (hot-front.ts); everything else as before.
    server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
      if (!front?.(req, res)) matchmake(req, res);
    });
    // Counted here, around matchmaking too.
    drain = new HttpDrain(server);
    // Last, so it wraps every listener: an error escaping one request fails that request only (request-guard.ts).
    guardRequests(server, logger);
  };

  const definition = config({
    displayLogs: false,
    options: {
      greet: false,
      publicAddress: settings.publicAddress,
      // Colyseus's own messages as JSON lines, not console text.
      logger: colyseusLogger(logger),
      ...sharedRooms.serverOptions,
    },

    initializeTransport: (transportOptions: { server: http.Server; app: unknown }) => {
      httpServer = transportOptions.server;
      transport = new RoomTransport({ ...transportOptions, maxPayload: MAX_WS_PAYLOAD_BYTES, clientIp, host: settings.host, onListening: takeOverRequests }, logger);
      return transport;
    },

    // Runs when the server listens, after initializeGameServer (which built the services).
    initializeExpress: async (application: express.Application) => {
      const app = application as express.Express;
      const ready = services!;
      expressApp = app;
      const storeBudgets = settings.store.kind === "mongodb";
      applyEdgeRules(app, { trust, clientIp, cors, storeBudgets });
      app.disable("x-powered-by");
      // API answers are per-user and never revalidated; hashing every body for an ETag is waste.
      app.set("etag", false);
      const hot = mountApi(app, ready);
      app.use(
        opsRoutes({
          store: ready.store,
          cache: ready.cache,
          metrics: settings.metrics.enabled ? ready.metrics : undefined,
          metricsToken: settings.metrics.token,
          isDraining: () => draining,
        }),
      );

      app.use(faviconRoutes());
      if (settings.apiDocsEnabled) {
        const platforms = ready.platformDefinitions;
        app.use(apiDocsRoutes(() => buildOpenApiDocument({ platforms, placeholderEmailDomain: settings.placeholderEmailDomain, douyinLivePushPath: settings.douyinLive.enabled ? settings.douyinLive.pushPath : undefined })));
      }
      if (settings.playgroundEnabled) {
        // The simulator's controls for the page's player exist only where the simulator runs in this process.
        if (ready.simulator) app.use(playgroundSimulatorRoutes({ sessions: ready.sessions, controls: simulatorControls(ready, ready.simulator.url) }));
        app.use(playgroundRoutes(ready.platformDefinitions, ready.platformApps));
      }
      // The operator console (docs/console.md): its own accounts, sessions and audit trail.
      if (settings.console.enabled) closeConsole = await mountConsole(app, ready, () => openOperatorStore(ready.config, ready.logger, { shareSqlite: true }));
      const onError = answerTheRestWithEnvelope(app, logger);
      if (settings.hotFront) front = hotFront({ hot, app, cors, storeBudgets, onError });
      if (httpServer && !bearWithAppPrototypes(httpServer, app)) logger.warn({ event: "http_prototypes_unchanged" }, "this node's HTTP server keeps its own request classes; every request's prototype is set as it comes (slower)");
      logger.info(`ready: ${describeStartup(ready)}`);
    },

    // Colyseus 0.18 runs this first, before the server listens (then initializeExpress).
    initializeGameServer: async (gameServer: Server) => {
      services = await buildServices(settings, logger, options.overrides);
      const ready = services;
      await matchMaker.onReady; // the presence the guard and notices subscribe on
      // The embedded simulator pushes item purchases to this server's own push route.
      ready.simulator?.payments.setDefaultNotifyUrl((platform) => {
        const address = httpServer?.address();
        return address && typeof address === "object" ? `http://127.0.0.1:${address.port}/api/minigame/${platform}/push` : undefined;
      });
      guard = new RoomSessionGuard(matchMaker.presence, ready.sessions, logger, ready);
      await guard.start();
      setRoomServices({
        sessions: ready.sessions,
        limiter: ready.limiter,
        rateLimit: settings.rateLimit,
        guard,
        logger,
        moderation: ready.moderation,
        mutes: ready.mutes,
        playerStorage: ready.playerStorage,
        subscribeMessages: ready.subscribeMessages,
        leaderboards: ready.leaderboards,
        saves: ready.saves,
        roomSessions: ready.analytics.roomSessions,
        lobbyMaxClients: settings.lobbyMaxClients,
        reconnectSeconds: settings.roomReconnectSeconds,
        holdTimer: options.overrides?.roomHoldTimer,
      });
      // Payments: the game's delivery hook, and the `purchase` message to the player's rooms.
      notices = new PlayerNotices(matchMaker.presence, logger, "purchase", settings.cacheKeyPrefix);
      await notices.start();
      ready.payments.onDeliver((order) => deliverItem(order, { logger }));
      ready.payments.onNotify((order) => {
        const app = ready.platformApps.appsOf(order.platform).find((a) => a.appId === order.appId)?.app;
        if (app) notices?.announce({ userId: order.userId, app, message: publicOrder(order) });
      });
      // The economy: one `reward` message per grant to the player's rooms in that app.
      rewardNotices = new PlayerNotices(matchMaker.presence, logger, "reward", settings.cacheKeyPrefix);
      await rewardNotices.start();
      ready.economy.rewards.onReward((n) =>
        rewardNotices?.announce({ userId: n.userId, app: n.appId, message: { source: n.source, sourceId: n.sourceId, currencies: n.currencies, items: n.items, balances: n.balances } }),
      );
      // LiveOps: a `configChanged` message to the rooms' players of an app when a newer version is taken up.
      stopConfigNotices = tellRoomsOfConfigChanges(ready.liveops, logger);
      ready.payments.start();
      gameServer.define("lobby", LobbyRoom).filterBy(APP_FILTER);
      // The example match: scores written to the players' platform storage at its end (friend rankings).
      gameServer.define("match", MatchRoom).filterBy(APP_FILTER);
      if (ready.douyinLive) {
        const live = ready.douyinLive;
        setDouyinLiveRoomServices({
          sessions: live.sessions,
          confirmDelivered: (msgIds) => live.intake.confirmDelivered(msgIds),
          redeliver: (liveRoomId) => live.intake.redeliver(liveRoomId),
          watch: live.watch,
          unwatch: live.unwatch,
          logger,
          keyPrefix: settings.cacheKeyPrefix,
        });
        live.connectRooms(publishToLiveRoom(matchMaker.presence, settings.cacheKeyPrefix));
        gameServer.define(DOUYIN_LIVE_ROOM, DouyinLiveRoom).filterBy(["liveRoomId"]);
      }
      sharedRooms.start();
      ready.metrics.gauge("colyseus_rooms", "Rooms in this process", () => matchMaker.stats.local.roomCount);
      ready.metrics.gauge("colyseus_clients", "Connected room clients in this process", () => matchMaker.stats.local.ccu);
      // Before Colyseus disconnects rooms: stop accepting and let in-flight HTTP requests finish.
      gameServer.onBeforeShutdown(async () => {
        draining = true;
        sharedRooms.stop(); // before Colyseus unlists this process, so nothing lists it again
        guard?.stop(); // while the presence connection is still open
        notices?.stop();
        rewardNotices?.stop();
        stopConfigNotices?.();
        if (!drain) return; // it never listened
        logger.info({ inFlight: drain.inFlight }, "shutting down: draining HTTP requests");
        await drain.drain({ acceptWindowMs: settings.shutdownAcceptWindowMs, budgetMs: settings.shutdownTimeoutMs });
      });
      gameServer.onShutdown(async () => {
        setRoomServices(undefined);
        await closeConsole?.();
        await services?.close();
      });
    },
  });

  return {
    definition,
    services: () => {
      if (!services) throw new Error("the server has not booted yet");
      return services;
    },
  };
}

/** One line that tells an operator what the server runs on. */
function describeStartup(services: Services): string {
  const { config } = services;
  const parts = [
    `${config.env} mode`,
    config.simulator === "embedded"
      ? `platform simulator at ${services.simulator?.url} serving ${services.platformDefinitions.map((p) => p.name).join(", ")}`
      : `platforms: ${services.platformDefinitions.map((p) => `${p.name} → ${config.platforms[p.name].apiBaseUrl}`).join(", ")}`,
    describeUserStore(config.store),
    { memory: "in-memory cache (single process)", redis: "Redis cache", "redis-cluster": "Redis Cluster cache" }[config.cache.kind],
    describeApps(config.apps),
  ];
  if (config.jwt.isDevelopmentSecret) parts.push("built-in development JWT secret");
  return parts.join("; ");
}

/** Reads the player's kept login the way the payment services do (the same cache entries), to name their openid to the simulator. */
function simulatorControls(services: Services, simulatorUrl: string): SimulatorPlayerControls {
  const custody = new SessionKeyCustody(services.cache, services.config.jwt.refreshTtlSec);
  return new SimulatorPlayerControls({ simulatorUrl, custody, platformApps: services.platformApps, timeoutMs: services.config.platformTimeoutMs });
}
