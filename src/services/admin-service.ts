import { parseIdentityNamespace } from "../core/apps";
import { AppError } from "../core/errors";
import type { UserRestriction, UserStore } from "../core/ports/user-store";
import type { PlatformIdentityKey, User } from "../core/user";
import type { Logger } from "../logging/logger";
import type { AccountService } from "./account-service";
import type { SessionService } from "./session-service";
import type { UserExport } from "./user-export";

/** What `find` shows an operator: the user, why it is disabled if it is, its identities and session. */
export interface UserOverview {
  user: User;
  restriction: UserRestriction | null;
  identities: PlatformIdentityKey[];
  /** Whether a session (access or refresh token) is live in the cache. */
  sessionLive: boolean;
  /** The apps in which a session is live. */
  sessionApps: string[];
}

export type AdminAction = "find" | "disable" | "enable" | "end-sessions" | "erase" | "export";

/**
 * Operators' actions on one user (the `npm run admin` commands), each written to the log as one
 * audit line: who, what, which user; never tokens or hashes. Knows nothing of the command line.
 */
export class AdminService {
  constructor(
    private readonly store: UserStore,
    private readonly sessions: SessionService,
    private readonly accounts: AccountService,
    private readonly platformNames: readonly string[],
    private readonly audit: Logger,
    /** Every store port's section (user-export.ts). */
    private readonly userExport: UserExport,
  ) {}

  /**
   * A user by id, username, email or `platform:platformId` (another app's: `platform@appId:openid`).
   * An `@` means an email unless a known platform name precedes it and a `:` follows; a known
   * platform (namespace) before the first `:` means an identity; otherwise an id, then a username.
   */
  async resolve(reference: string): Promise<User> {
    const ref = reference.trim();
    const colon = ref.indexOf(":");
    let user: User | null = null;
    if (colon > 0 && this.platformNames.includes(parseIdentityNamespace(ref.slice(0, colon)).platform)) {
      user = await this.store.findByIdentity({ platform: ref.slice(0, colon), platformId: ref.slice(colon + 1) });
    } else if (ref.includes("@")) {
      user = (await this.store.findCredentialsByEmail(ref.toLowerCase()))?.user ?? null;
    } else {
      user = (await this.store.findById(ref)) ?? (await this.store.findCredentialsByUsername(ref))?.user ?? null;
    }
    if (!user) throw new AppError("player_not_found", { message: `No user matches ${JSON.stringify(ref)}` });
    return user;
  }

  async find(reference: string, by: string): Promise<UserOverview> {
    const user = await this.resolve(reference);
    this.record(by, "find", user.id);
    return this.overview(user);
  }

  async disable(reference: string, restriction: { reason: string; until: string | null }, by: string): Promise<UserOverview> {
    const { id } = await this.resolve(reference);
    const user = await this.accounts.disableUser(id, restriction);
    this.record(by, "disable", id, { reason: restriction.reason, until: restriction.until });
    return this.overview(user);
  }

  async enable(reference: string, by: string): Promise<UserOverview> {
    const { id } = await this.resolve(reference);
    const user = await this.accounts.enableUser(id);
    this.record(by, "enable", id);
    return this.overview(user);
  }

  async endSessions(reference: string, by: string): Promise<UserOverview> {
    const user = await this.resolve(reference);
    await this.sessions.endSession(user.id, "operator");
    this.record(by, "end-sessions", user.id);
    return this.overview(user);
  }

  /**
   * Erases the user. One whose erase was interrupted (a store that erases in steps) may no longer
   * be found by the reference: then every interrupted erase is finished, and said so.
   */
  async erase(reference: string, by: string): Promise<{ erased: string; finishedInterrupted?: number }> {
    let id: string;
    try {
      id = (await this.resolve(reference)).id;
    } catch (err) {
      const finished = err instanceof AppError && this.store.finishInterruptedErases ? await this.store.finishInterruptedErases() : 0;
      if (finished === 0) throw err;
      this.record(by, "erase", reference.trim(), { finishedInterrupted: finished });
      return { erased: reference.trim(), finishedInterrupted: finished };
    }
    await this.accounts.eraseUser(id);
    this.record(by, "erase", id);
    return { erased: id };
  }

  /** Everything stored about the user in every store port, never the password hash: the data-access right. */
  async export(reference: string, by: string): Promise<Record<string, unknown>> {
    const { id } = await this.resolve(reference);
    const exported = await this.userExport.collect(id);
    this.record(by, "export", id, { sections: this.userExport.sectionNames() });
    return exported;
  }

  private async overview(user: User): Promise<UserOverview> {
    const [restriction, identities, sessionApps] = await Promise.all([
      this.store.findRestriction(user.id),
      this.store.listIdentities(user.id),
      this.sessions.liveApps(user.id),
    ]);
    return { user, restriction, identities, sessionLive: sessionApps.length > 0, sessionApps };
  }

  private record(by: string, action: AdminAction, userId: string, detail: Record<string, unknown> = {}): void {
    this.audit.info({ event: "admin_action", by, action, userId, ...detail, outcome: "done" }, `admin ${action}`);
  }
}
