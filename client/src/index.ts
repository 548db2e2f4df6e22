export { GameClient, type GameClientOptions, type GameClientEvents } from "./game-client";
export { ApiError, SESSION_ENDING_CODES } from "./errors";
export type { ReconnectFailure } from "./events";
export type { ReconnectionOptions } from "./reconnection";
export { SESSION_ENDED_CLOSE_CODE, SEAT_REPLACED_CLOSE_CODE, CONSENTED_CLOSE_CODE, isConnectionLoss } from "./close-codes";
export type { Session, ServerUser } from "./session";
export {
  NetworkError,
  PLATFORM_LOGIN,
  memoryStorage,
  type Runtime,
  type RuntimeSocket,
  type RuntimeStorage,
  type LoginCodes,
  type PlatformName,
  type HttpRequest,
  type HttpResponse,
} from "./runtime";
export { miniGameRuntime, type MiniGameApi, type MiniGameSocketTask, type MiniGameRuntimeOptions } from "./runtimes/minigame-runtime";
export type { Order } from "./payments";
export type { Catalog, CatalogItem, BuyResult, SoftPurchase, RewardEvent, ItemCount } from "./economy";
export { Saves, SaveConflictError, type SavedObject, type SaveReceipt, type SavePutOptions, type SaveBatchWrite } from "./saves";
export type { DouyinLive, LiveSession, LiveComment, LiveGift, LiveLike, LiveFansclub, LiveRoundEnded } from "./douyin-live";
export type { PlayerConfig, PlayerConfigData, LiveEventView } from "./liveops";
export { playerConfig } from "./liveops";
export { Leaderboard, type LeaderboardRecord, type LeaderboardPage, type LeaderboardPeriod } from "./leaderboards";
export type { Mail, MailAttachments, RewardResult, AdRewardResult, AdVerification, ShowRewardedAd, WatchAdOptions } from "./rewards";
export { growth, launchedFromSidebar, feedLaunch, Growth, type DailyReward, type DouyinShowOptions, type DouyinLaunchOptions, type FeedScene, type SealedData, type GroupInfo, type GameClub, type ShareMessage } from "./growth";
export { MAX_TEMPLATES_PER_PROMPT, type SubscribeDecision, type SubscribeGrants, type SubscribePromptApi } from "./subscribe";
export { webRuntime, type WebRuntimeOptions } from "./runtimes/web-runtime";
export { detectMiniGameRuntime } from "./runtimes/detect-runtime";
export { RuntimeColyseusClient } from "./colyseus/runtime-colyseus-client";
export { getStateCallbacks, Room } from "@colyseus/sdk";

import { GameClient, type GameClientOptions } from "./game-client";

/** The usual start: `const client = createGameClient({ server: "https://game.example.com" })`. */
export function createGameClient(options: GameClientOptions): GameClient {
  return new GameClient(options);
}
