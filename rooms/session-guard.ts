import type { Presence } from "@colyseus/core";
import {
  batchOf,
  messagesIn,
  platformTokenChangedIn,
  platformTokenChangedMessage,
  SESSION_CHANGED_TOPIC as TOPIC,
  userChangedIn,
  userChangedMessage,
} from "../src/core/session-events";
import type { Logger } from "../src/logging/logger";
import type { PlatformTokenService } from "../src/services/platform-token-service";
import type { RecentUsers } from "../src/services/recent-users";
import type { SessionService } from "../src/services/session-service";
import type { UserChangeFeed } from "../src/services/user-changes";

/** Close code sent to a client whose session ended (logout, new login, password change…). */
export const SESSION_ENDED_CLOSE_CODE = 4401;

/** What the guard needs from a room: drop the given user's clients that are not of the live session. */
export interface GuardedRoom {
  /** The room's app: a player's live session there is the one of this app. */
  readonly app: string;
  revokeStaleSessions(userId: string, liveSid: string | null): void;
  /** Whether a client of this user is in the room or waiting to reconnect to it. */
  holdsUser(userId: string): boolean;
}

/** The per-process copies the guard keeps in step across processes: user records, platform tokens. */
export interface ProcessCopies {
  recentUsers: Pick<RecentUsers, "forget">;
  userChanges: Pick<UserChangeFeed, "on">;
  platformTokens?: Pick<PlatformTokenService, "onTokenChange" | "forgetCopy">;
}

/**
 * Carries "this user's session changed" to every process through the Colyseus presence (Redis
 * when configured), where each local room drops that user's clients of any other session.
 * A user-changed message on the same topic (status, ban, profile, password, erase) makes every
 * process drop its cached copy of the user first; a platform-token-changed message, its copy of
 * that platform's access token.
 *
 * The session changes of one event-loop turn are published as one message (see `batchOf`): every
 * process receives every message, so one publish per login made a login's cost grow with the
 * processes. A user or platform-token change is published at once, with whatever is pending: the
 * write's HTTP answer must not overtake it, or the next request to another process could still
 * be answered from the old copy.
 * A lone announcement still travels as a plain message, as `npm run admin` sends them.
 */
export class RoomSessionGuard {
  private readonly rooms = new Set<GuardedRoom>();
  private pending: unknown[] = [];
  private flushScheduled = false;
  private readonly onMessage = (message: unknown) => {
    for (const item of messagesIn(message)) this.handle(item);
  };

  constructor(
    private readonly presence: Presence,
    private readonly sessions: SessionService,
    private readonly logger: Logger,
    private readonly copies?: ProcessCopies,
  ) {}

  async start(): Promise<void> {
    await this.presence.subscribe(TOPIC, this.onMessage);
    this.sessions.onSessionChange((userId) => this.announceAtEndOfTurn(userId));
    this.copies?.userChanges.on((userId) => this.announceNow(userChangedMessage(userId)));
    this.copies?.platformTokens?.onTokenChange((cacheKey) => this.announceNow(platformTokenChangedMessage(cacheKey)));
  }

  /** Publishes what is still pending, then stops listening. */
  stop(): void {
    this.flush();
    // Redis presence answers with a promise that rejects once its connection is closing.
    Promise.resolve(this.presence.unsubscribe(TOPIC, this.onMessage)).catch(() => undefined);
  }

  register(room: GuardedRoom): void {
    this.rooms.add(room);
  }

  unregister(room: GuardedRoom): void {
    this.rooms.delete(room);
  }

  private announceNow(message: unknown): void {
    this.pending.push(message);
    this.flush();
  }

  private announceAtEndOfTurn(message: unknown): void {
    this.pending.push(message);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // After the I/O of this turn: every session a burst of logins ended goes out together.
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.pending.length === 0) return;
    const messages = this.pending;
    this.pending = [];
    Promise.resolve(this.presence.publish(TOPIC, batchOf(messages))).catch((err: unknown) =>
      this.logger.warn({ err, changes: messages.length }, "could not publish session changes"),
    );
  }

  private handle(message: unknown): void {
    const tokenKey = platformTokenChangedIn(message);
    if (tokenKey !== undefined) {
      this.copies?.platformTokens?.forgetCopy(tokenKey);
      return;
    }
    const changed = userChangedIn(message);
    if (changed !== undefined) {
      this.copies?.recentUsers.forget(changed);
      void this.recheck(changed);
    } else if (typeof message === "string") {
      void this.recheck(message);
    }
  }

  private anyRoomHolds(userId: string): boolean {
    for (const room of this.rooms) if (room.holdsUser(userId)) return true;
    return false;
  }

  private async recheck(userId: string): Promise<void> {
    // Every process hears every login's session change: only those holding the user's clients
    // need the live session, so the others skip the cache read (a cost that grew with processes).
    if (!this.anyRoomHolds(userId)) return;
    try {
      // Each app has its own session: a room compares its clients with the session of its app.
      const liveSids = new Map<string, Promise<string | null>>();
      for (const room of this.rooms) {
        if (!room.holdsUser(userId)) continue;
        let liveSid = liveSids.get(room.app);
        if (!liveSid) liveSids.set(room.app, (liveSid = this.sessions.liveSessionId(userId, room.app)));
        room.revokeStaleSessions(userId, await liveSid);
      }
    } catch (err) {
      this.logger.warn({ err, userId }, "could not re-check room sessions");
    }
  }
}
