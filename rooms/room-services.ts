/**
 * Rooms are built by Colyseus with no constructor arguments, so they reach the services through
 * this one accessor, set once at boot by app.config.ts.
 */
import type { AppConfig } from "../src/config/config";
import type { HoldTimer } from "../src/services/services";
import type { Logger } from "../src/logging/logger";
import type { ModerationService } from "../src/services/moderation-service";
import type { MuteService } from "../src/services/mute-service";
import type { RateLimiter } from "../src/services/rate-limiter";
import type { PlayerStorageService } from "../src/services/social/player-storage-service";
import type { SubscribeMessageService } from "../src/services/social/subscribe-message-service";
import type { SessionService } from "../src/services/session-service";
import type { LeaderboardService } from "../src/services/leaderboards/leaderboard-service";
import type { SaveService } from "../src/services/saves/save-service";
import type { RoomSessionGuard } from "./session-guard";
import type { RoomSessions } from "../src/services/analytics/room-sessions";

export interface RoomServices {
  sessions: SessionService;
  limiter: RateLimiter;
  rateLimit: AppConfig["rateLimit"];
  guard: RoomSessionGuard;
  logger: Logger;
  moderation: ModerationService;
  /** Operators' mutes: a muted player's chat is refused (rooms/chat-mute.ts). */
  mutes: MuteService;
  /** The players' platform storage: MatchRoom writes scores with it at match end. */
  playerStorage: PlayerStorageService;
  /** Subscribe messages ("your match is ready"): `subscribeMessages.sendToPlayer(this.app, userId, …)`. */
  subscribeMessages: SubscribeMessageService;
  /** Leaderboards: rooms submit results with `leaderboards.submit(app, userId, boardId, score)`. */
  leaderboards: LeaderboardService;
  /** Cloud saves: rooms keep players' progress with `saves.put(app, userId, …, "server")` or `saves.writeForPlayers` (docs/saves.md). */
  saves: SaveService;
  /** Room sessions reported to analytics: a seat taken, a player gone for good. */
  roomSessions?: RoomSessions;
  /** Seats per lobby room (LOBBY_MAX_CLIENTS). */
  lobbyMaxClients: number;
  /** How long a dropped player's seat is held (ROOM_RECONNECT_SECONDS); a room type may override it. */
  reconnectSeconds: number;
  /** The timer seats are held with; the process's own unless a test controls the clock. */
  holdTimer?: HoldTimer;
}

let current: RoomServices | undefined;

export function setRoomServices(services: RoomServices | undefined): void {
  current = services;
}

export function roomServices(): RoomServices {
  if (!current) throw new Error("room services are not set: the server has not booted");
  return current;
}
