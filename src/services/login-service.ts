import { AppError } from "../core/errors";
import { AccountTakenError, IdentityTakenError, type UserStore } from "../core/ports/user-store";
import { USER_STATUS_ACTIVE, type PlatformIdentityKey, type User } from "../core/user";
import type { AnalyticsRecorder } from "../core/ports/analytics-store";
import type { Logger } from "../logging/logger";
import type { Metrics } from "../observability/metrics";
import type { LoginCodes, PlatformDefinition, PlatformIdentity, UserKeyField } from "../platforms/platform";
import type { PlatformApp, PlatformApps } from "./platform-apps";
import type { RecentUsers } from "./recent-users";
import type { SessionKeyCustody } from "./session-key-custody";
import type { SessionService } from "./session-service";
import { userDisabledError } from "./user-access";
import { SERVER_EVENTS } from "./analytics/event-names";
import { newPlatformUser } from "./user-factory";
import { identityNamespaces, playerIdentityKeys, type IdentityNamespaces } from "./player-identity-keys";

export interface LoginServiceOptions {
  exposeSessionKey: boolean;
  placeholderEmailDomain: string;
  now?: () => number;
  metrics?: Metrics;
  /** Recently seen active users of this process: a returning player's login then skips the store. */
  recentUsers?: RecentUsers;
  /** LINK_APPS_BY_UNIONID: a unionid already linked in one app of the studio leads to the same user in another. */
  linkAppsByUnionid?: boolean;
  /** Where every login is reported (docs/analytics.md). */
  analytics?: AnalyticsRecorder;
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
  private readonly namespacesOf = new Map<PlatformApp, IdentityNamespaces>();
  /** Users this process created by a login, for the login's `new` (analytics). */
  private readonly createdHere = new WeakSet<User>();

  constructor(
    private readonly apps: PlatformApps,
    private readonly store: UserStore,
    private readonly sessions: SessionService,
    private readonly custody: SessionKeyCustody,
    private readonly logger: Logger,
    private readonly options: LoginServiceOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Logs a player of `app` in on `platformName`; the app is our key (PlatformApps.resolve finds it from an app id). */
  async loginWithPlatform(platformName: string, app: string, codes: LoginCodes, client: { appVersion?: string } = {}): Promise<PlatformLoginResponse> {
    try {
      const response = await this.login(this.apps.get(platformName, app), codes, client);
      this.options.metrics?.loginFinished(platformName, app, "ok");
      return response;
    } catch (err) {
      this.options.metrics?.loginFinished(platformName, app, err instanceof AppError ? err.code : "error");
      throw err;
    }
  }

  private async login(platform: PlatformApp, codes: LoginCodes, sent: { appVersion?: string }): Promise<PlatformLoginResponse> {
    const { definition, client, app } = platform;
    const platformName = definition.name;

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

    const user = await this.findOrCreateUser(platformName, this.namespaces(platform), found, result.identity);
    // Refused before a token exists: a disabled player never holds one, not even briefly.
    if (user.status !== USER_STATUS_ACTIVE) throw this.withEmptySession(await userDisabledError(this.store, user.id));
    // Kept whether or not the response shows it: the player-data routes need it on the server.
    // Written with the session's tokens, in the same cache round trip.
    const { openid, sessionKey } = result.identity;
    const kept = await this.custody.entryFor(user.id, app, { platform: platformName, openid, sessionKey, keptAt: this.now() });
    // A user found by an anonymous id was found by whoever holds the device, not by the platform's word.
    const grade = found.field === "anonymousOpenid" ? "anonymous" : "full";
    const session = await this.sessions.startSession(user, app, grade, "new_login", kept ? [kept] : []);
    this.logger.info({ event: "login", platform: platformName, app, userId: user.id }, "mini-game login");
    const facts = { new: this.createdHere.has(user), ...(sent.appVersion ? { appVersion: sent.appVersion } : {}) };
    this.options.analytics?.record({ name: SERVER_EVENTS.login, app, platform: platformName, userId: user.id, props: facts });
    // The key this game's login found the player by: a player of several games has one openid in each (app-identity.ts).
    const shown = user.openid === found.key ? user : { ...user, openid: found.key };
    return { ...fields, token: session.token, refreshToken: session.refreshToken, expiresIn: session.expiresIn, user: shown };
  }

  /** The namespaces of this app's ids (see identityNamespaces), worked out once per app: fixed for the process's life. */
  private namespaces(platform: PlatformApp): IdentityNamespaces {
    let known = this.namespacesOf.get(platform);
    if (!known) {
      const apps = this.apps.appsOf(platform.definition.name).length;
      known = identityNamespaces(platform.definition.name, this.apps.namespaceOf(platform), apps, this.options.linkAppsByUnionid ?? true);
      this.namespacesOf.set(platform, known);
    }
    return known;
  }

  private async findOrCreateUser(
    platform: string,
    ns: IdentityNamespaces,
    found: { key: string; field: UserKeyField },
    identity: PlatformIdentity,
  ): Promise<User> {
    const { key } = found;
    const { primary, anonymous, union } = playerIdentityKeys(ns, found, identity);

    for (let attempt = 1; ; attempt++) {
      const existing = await this.findByIdentity(primary);
      if (existing) {
        if (anonymous) await this.linkAnonymousIfFree(existing.id, anonymous);
        if (union) await this.linkUnionIfFree(existing.id, union);
        return existing;
      }
      if (union) {
        const linked = await this.joinByUnionid(primary, union, anonymous);
        if (linked) return linked;
      }
      if (anonymous) {
        const migrated = await this.migrateAnonymousUser(primary, anonymous);
        if (migrated) return migrated;
      }
      try {
        const draft = newPlatformUser(platform, key, this.options.placeholderEmailDomain, new Date(this.now()));
        const identities = [primary, ...(anonymous ? [anonymous] : []), ...(union ? [union] : [])];
        const created = await this.store.createUser(draft, identities);
        this.logger.info({ event: "user_created", platform, userId: created.id }, "user created");
        this.createdHere.add(created);
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

  /**
   * A player new to this app whose unionid is already linked (they play another game of the studio):
   * the same user, now also found by this app's openid. Null when no user has the unionid, or the
   * openid was linked concurrently (the caller looks again).
   */
  private async joinByUnionid(primary: PlatformIdentityKey, union: PlatformIdentityKey, anonymous?: PlatformIdentityKey): Promise<User | null> {
    const owner = await this.store.findByIdentity(union);
    if (!owner) return null;
    const joined = await this.store.attachIdentity(owner.id, primary, { asPrimary: false });
    if (!joined) return null;
    if (anonymous) await this.linkAnonymousIfFree(owner.id, anonymous);
    this.logger.info({ event: "user_joined_app", namespace: primary.platform, userId: owner.id }, "player of another app of the studio, linked by unionid");
    return joined;
  }

  /** Users from before the link (or from before a second app) get their unionid on their next login. Cheap: the recent-users copy answers. */
  private async linkUnionIfFree(userId: string, union: PlatformIdentityKey): Promise<void> {
    if (await this.findByIdentity(union)) return; // linked already (to this user, or to another: left alone)
    await this.store.attachIdentity(userId, union, { asPrimary: false });
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

