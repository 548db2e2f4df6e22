/**
 * What the composition root (server/container.ts) hands the edges: every service of one process.
 * It lives beside the services, below the edges (api, console, rooms), so each edge takes it without
 * reaching up to the server that builds it.
 */
import type { AppConfig } from "../config/config";
import type { Cache } from "../core/ports/cache";
import type { UserStore } from "../core/ports/user-store";
import type { Logger } from "../logging/logger";
import type { Metrics } from "../observability/metrics";
import type { PlatformDefinition } from "../platforms/platform";
import type { AccountService } from "./account-service";
import type { LoginService } from "./login-service";
import type { ModerationService } from "./moderation-service";
import type { MuteService } from "./mute-service";
import type { RateLimiter } from "./rate-limiter";
import type { PlatformTokenService } from "./platform-token-service";
import type { PlatformApps } from "./platform-apps";
import type { PlayerDataService } from "./player-data-service";
import type { AppIdentities } from "./app-identity";
import type { RecentUsers } from "./recent-users";
import type { SessionService } from "./session-service";
import type { UserChangeFeed } from "./user-changes";
import type { AnalyticsServices, DouyinLiveServices, EconomyServices, GrowthServices, PaymentServices, RewardServices, SocialServices } from "./service-groups";
import type { RunningSimulator } from "../simulator/simulator-server";
import type { LiveOpsService } from "./liveops/liveops-service";
import type { LeaderboardService } from "./leaderboards/leaderboard-service";
import type { SaveService } from "./saves/save-service";
import type { SupportDesk } from "./growth/support-desk";

/** setTimeout as rooms use it to hold a seat (rooms/seat-hold.ts). */
export interface HoldTimer {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface Services {
  config: AppConfig;
  logger: Logger;
  store: UserStore;
  cache: Cache;
  /** This process's copies of recently verified users; `forget` when another process changed one. */
  recentUsers: RecentUsers;
  /** Every change this process makes to a user, for telling the other processes. */
  userChanges: UserChangeFeed;
  sessions: SessionService;
  login: LoginService;
  accounts: AccountService;
  limiter: RateLimiter;
  platformTokens: PlatformTokenService;
  playerData: PlayerDataService;
  /** Content security for what players type (chat, nicknames, studio rooms). */
  moderation: ModerationService;
  /** Operators' mutes of players' chat in rooms (stored with the user, read through the cache). */
  mutes: MuteService;
  /** The enabled platforms (PLATFORMS), in registry order. */
  platformDefinitions: readonly PlatformDefinition[];
  /** Every app on every enabled platform, with its client; the routes resolve a client's app id here. */
  platformApps: PlatformApps;
  /** A player's openid as each game knows it (GET /api/users/me). */
  appIdentities: AppIdentities;
  /** The player's platform storage (friend rankings): the storage routes and rooms at match end. */
  playerStorage: SocialServices["playerStorage"];
  /** Subscribe messages: the internal route, rooms and `admin notify`. */
  subscribeMessages: SocialServices["subscribeMessages"];
  /** Coins, orders, item purchases and their delivery (docs/payments.md). */
  payments: PaymentServices;
  /** Catalog, wallets, inventories and the reward ledger (docs/economy.md); `economy.rewards` is the RewardGranter. */
  economy: EconomyServices;
  /** Rewarded ads, gift packs and codes, mail (docs/economy-rewards.md), granted through `economy.rewards`. */
  rewardSources: RewardServices;
  growth: GrowthServices;
  /** Customer-service conversations: players' messages the platforms push, operators' replies (docs/growth.md). */
  support: SupportDesk;
  /** Flags, audiences, experiments, live events (docs/liveops.md): what each player gets, decided here. */
  liveops: LiveOpsService;
  metrics: Metrics;
  /** Leaderboards and tournaments (docs/leaderboards.md). */
  leaderboards: LeaderboardService;
  /** Cloud saves: players' game data, versioned, for the routes and for rooms and services (docs/saves.md). */
  saves: SaveService;
  /** Events, rollups and reports (docs/analytics.md); `analytics.writer` is where facts are recorded. */
  analytics: AnalyticsServices;
  /** Douyin live-stream games (docs/douyin-live.md); present when DOUYIN_LIVE_ENABLED. */
  douyinLive?: DouyinLiveServices;
  /** Present when the simulator is embedded (development default). */
  simulator?: RunningSimulator;
  close(): Promise<void>;
}
