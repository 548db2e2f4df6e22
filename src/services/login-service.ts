import { AppError } from "../core/errors";
import { AccountTakenError, IdentityTakenError, type UserStore } from "../core/ports/user-store";
import { USER_STATUS_ACTIVE, type PlatformIdentityKey, type User } from "../core/user";
import type { Logger } from "../logging/logger";
import type { Metrics } from "../observability/metrics";
import type { LoginCodes, PlatformClient, PlatformDefinition, PlatformIdentity, UserKeyField } from "../platforms/platform";
import type { RecentUsers } from "./recent-users";
import type { SessionKeyCustody } from "./session-key-custody";
import type { SessionService } from "./session-service";
import { userDisabledError } from "./user-access";
import { newPlatformUser } from "./user-factory";

export interface PlatformLogin {
  definition: PlatformDefinition;
  client: PlatformClient;
}

export interface LoginServiceOptions {
  exposeSessionKey: boolean;
  placeholderEmailDomain: string;
  now?: () => number;
  metrics?: Metrics;
  /** Recently seen active users of this process: a returning player's login then skips the store. */
  recentUsers?: RecentUsers;
}

/** The `data` of a successful mini-game login: the platform's fields plus our token and user. */
export type PlatformLoginResponse = Record<string, unknown> & {
  token: string;
  refreshToken: string;
  expiresIn: number;
  user: User;
};

const MAX_CREATE_ATTEMPTS = 3;

/** Mini-game login: exchange the code, find or create the local user, start a session. */
export class LoginService {
  private readonly now: () => number;

  constructor(
    private readonly platforms: ReadonlyMap<string, PlatformLogin>,
    private readonly store: UserStore,
    private readonly sessions: SessionService,
    private readonly custody: SessionKeyCustody,
    private readonly logger: Logger,
    private readonly options: LoginServiceOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  async loginWithPlatform(platformName: string, codes: LoginCodes): Promise<PlatformLoginResponse> {
    try {
      const response = await this.login(platformName, codes);
      this.options.metrics?.loginFinished(platformName, "ok");
      return response;
    } catch (err) {
      this.options.metrics?.loginFinished(platformName, err instanceof AppError ? err.code : "error");
      throw err;
    }
  }

  private async login(platformName: string, codes: LoginCodes): Promise<PlatformLoginResponse> {
    const platform = this.platforms.get(platformName);
    if (!platform) throw new AppError("unknown_platform");
    const { definition, client } = platform;

    let result;
    try {
      result = await client.exchangeCode(codes);
    } catch (err) {
      // Logged once, by the edge's error mapper, with the platform's error number.
      if (err instanceof AppError) throw this.withEmptySession(err);
      throw err;
    }

    const fields = this.options.exposeSessionKey ? result.responseFields : withoutSessionKey(result.responseFields);

    const found = userKey(result.identity, definition);
    if (!found) {
      throw new AppError("platform_identity_missing", {
        data: { platform: platformName, ...fields, token: "", user: null },
      });
    }

    const user = await this.findOrCreateUser(platformName, found.key, result.identity);
    // Refused before a token exists: a disabled player never holds one, not even briefly.
    if (user.status !== USER_STATUS_ACTIVE) throw this.withEmptySession(await userDisabledError(this.store, user.id));
    // Kept whether or not the response shows it: the player-data routes need it on the server.
    // Written with the session's tokens, in the same cache round trip.
    const { openid, sessionKey } = result.identity;
    const kept = await this.custody.entryFor(user.id, { platform: platformName, openid, sessionKey });
    // A user found by an anonymous id was found by whoever holds the device, not by the platform's word.
    const grade = found.field === "anonymousOpenid" ? "anonymous" : "full";
    const session = await this.sessions.startSession(user, grade, "new_login", kept ? [kept] : []);
    this.logger.info({ event: "login", platform: platformName, userId: user.id }, "mini-game login");
    return { ...fields, token: session.token, refreshToken: session.refreshToken, expiresIn: session.expiresIn, user };
  }

  private async findOrCreateUser(platform: string, key: string, identity: PlatformIdentity): Promise<User> {
    const primary: PlatformIdentityKey = { platform, platformId: key };
    // With both codes (Douyin), the anonymous id is a second key of the same player.
    const anonymous: PlatformIdentityKey | undefined =
      identity.anonymousOpenid && identity.anonymousOpenid !== key
        ? { platform, platformId: identity.anonymousOpenid }
        : undefined;

    for (let attempt = 1; ; attempt++) {
      const existing = await this.findByIdentity(primary);
      if (existing) {
        if (anonymous) await this.linkAnonymousIfFree(existing.id, anonymous);
        return existing;
      }
      if (anonymous) {
        const migrated = await this.migrateAnonymousUser(primary, anonymous);
        if (migrated) return migrated;
      }
      try {
        const draft = newPlatformUser(platform, key, this.options.placeholderEmailDomain, new Date(this.now()));
        const created = await this.store.createUser(draft, anonymous ? [primary, anonymous] : [primary]);
        this.logger.info({ event: "user_created", platform, userId: created.id }, "user created");
        return created;
      } catch (err) {
        // A concurrent login created (or linked) the same player first: look again.
        const raced = err instanceof IdentityTakenError || err instanceof AccountTakenError;
        if (!raced || attempt >= MAX_CREATE_ATTEMPTS) throw err;
      }
    }
  }

  private findByIdentity(identity: PlatformIdentityKey): Promise<User | null> {
    const recent = this.options.recentUsers;
    return recent ? recent.findByIdentity(identity, this.loadByIdentity) : this.store.findByIdentity(identity);
  }

  private readonly loadByIdentity = (identity: PlatformIdentityKey) => this.store.findByIdentity(identity);

  /**
   * A player who first played anonymously and now logs in with a code: move that user to the
   * openid instead of creating a second one. Progress is kept; the anonymous id still leads to it.
   */
  private async migrateAnonymousUser(primary: PlatformIdentityKey, anonymous: PlatformIdentityKey): Promise<User | null> {
    const anonymousUser = await this.store.findByIdentity(anonymous);
    if (!anonymousUser) return null;
    const migrated = await this.store.attachIdentity(anonymousUser.id, primary, { asPrimary: true });
    if (migrated) {
      this.logger.info({ event: "user_migrated", platform: primary.platform, userId: migrated.id }, "anonymous user moved to openid");
      return migrated;
    }
    // The openid was attached concurrently (to this user or another): the caller looks it up again.
    return null;
  }

  private async linkAnonymousIfFree(userId: string, anonymous: PlatformIdentityKey): Promise<void> {
    if (await this.store.findByIdentity(anonymous)) return; // belongs to someone: merging is game-specific
    await this.store.attachIdentity(userId, anonymous, { asPrimary: false });
  }

  private withEmptySession(err: AppError): AppError {
    return new AppError(err.code, {
      message: err.message,
      data: { ...err.data, token: "", user: null },
      cause: err.cause,
      headers: err.headers,
    });
  }
}

/** The first non-empty identity field in the platform's order, and which field it was. */
function userKey(identity: PlatformIdentity, definition: PlatformDefinition): { key: string; field: UserKeyField } | undefined {
  for (const field of definition.userKeyOrder) if (identity[field]) return { key: identity[field], field };
  return undefined;
}

/** The platform's fields minus session_key (copied, not `delete`d: a deleted key makes a slow object to serialise). */
function withoutSessionKey(responseFields: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const key in responseFields) if (key !== "session_key") fields[key] = responseFields[key];
  return fields;
}
