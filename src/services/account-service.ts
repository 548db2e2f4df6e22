import crypto from "node:crypto";
import { AppError } from "../core/errors";
import type { ErasureMarks } from "../core/ports/erasure-marks";
import { AccountTakenError, type ProfileChanges, type UserCredentials, type UserStore } from "../core/ports/user-store";
import { USER_STATUS_ACTIVE, type User } from "../core/user";
import type { Logger } from "../logging/logger";
import type { ModerationService } from "./moderation-service";
import { hashPassword, verifyPassword } from "./password-hasher";
import type { RateLimiter } from "./rate-limiter";
import { requireFullGrade, requireGradeToErase } from "./session-grade";
import type { AuthContext, IssuedSession, SessionService } from "./session-service";
import { userDisabledError } from "./user-access";
import { uuidV7 } from "../core/random-pool";

export type SessionWithUser = Omit<IssuedSession, "sid"> & { user: User };

export interface AccountServiceOptions {
  recentLoginSec: number;
  accountMax: number;
  accountWindowSec: number;
  now?: () => number;
}

/** Account login, registration, profile and password: everything that is not a platform login. */
export class AccountService {
  /** Verified against when the account does not exist, so both failures take the same time. */
  private readonly dummyHash: Promise<string>;
  private readonly now: () => number;

  constructor(
    private readonly store: UserStore,
    private readonly sessions: SessionService,
    private readonly limiter: RateLimiter,
    private readonly logger: Logger,
    private readonly options: AccountServiceOptions,
    /** Checks new nicknames; absent for operators' tooling, which changes no profile text. */
    private readonly moderation?: ModerationService,
  ) {
    this.dummyHash = hashPassword(crypto.randomBytes(16).toString("hex"));
    this.now = options.now ?? Date.now;
  }

  /** Registers an account and starts its session in `app`. */
  async register(input: { username: string; email: string; password: string }, app: string): Promise<SessionWithUser> {
    const createdAt = new Date(this.now()).toISOString();
    let user: User;
    try {
      user = await this.store.createUser(
        {
          id: uuidV7(),
          username: input.username,
          email: input.email,
          passwordHash: await hashPassword(input.password),
          openid: null,
          createdAt,
          passwordSetAt: createdAt,
        },
        [],
      );
    } catch (err) {
      if (err instanceof AccountTakenError) throw new AppError("account_exists");
      throw err;
    }
    this.logger.info({ event: "user_registered", userId: user.id }, "account registered");
    return this.startSession(user, app, "new_login");
  }

  async login(identifier: { username: string } | { email: string }, password: string, app: string): Promise<SessionWithUser> {
    const credentials =
      "username" in identifier
        ? await this.store.findCredentialsByUsername(identifier.username)
        : await this.store.findCredentialsByEmail(identifier.email);
    await this.spendPasswordGuess(credentials ? { userId: credentials.user.id } : { unknown: identifier });
    // Unknown accounts and accounts whose password nobody chose yet cost one scrypt too, so the
    // answer time does not tell which accounts exist.
    const chosen = credentials?.passwordSetAt ? credentials.passwordHash : await this.dummyHash;
    const valid = await verifyPassword(password, chosen);
    if (!credentials?.passwordSetAt || !valid) throw new AppError("invalid_credentials");
    if (credentials.user.status !== USER_STATUS_ACTIVE) throw await userDisabledError(this.store, credentials.user.id);
    return this.startSession(credentials.user, app, "new_login");
  }

  /** `app` is the session's: its platform credentials check the nickname. */
  async updateProfile(userId: string, app: string, changes: ProfileChanges, expectedVersion: number): Promise<User> {
    // A nickname is shown to every other player: the platform checks it as profile text (scene 1).
    if (changes.nickname && this.moderation) await this.moderation.requireAcceptable(userId, app, changes.nickname, "profile");
    const result = await this.store.updateProfile(userId, changes, expectedVersion);
    if (result === "version_conflict") throw new AppError("version_conflict");
    if (!result) throw new AppError("user_disabled");
    return result;
  }

  /**
   * A mini-game user's password is random and unknown, so the first one may be set without it,
   * but only from a fresh login: a stolen older token cannot become a permanent login.
   * Changing a password ends the sessions of every app and starts a new one in the session's app.
   */
  async changePassword(auth: AuthContext, input: { currentPassword?: string; newPassword: string }): Promise<SessionWithUser> {
    // A password is a way in from anywhere: an anonymous device login must not be able to add one.
    requireFullGrade(auth);
    const credentials = await this.requireCredentials(auth.userId);
    if (credentials.passwordSetAt === null) {
      const ageSec = Math.floor(this.now() / 1000) - auth.authTime;
      if (ageSec > this.options.recentLoginSec) throw new AppError("recent_login_required");
    } else {
      if (!input.currentPassword) {
        throw new AppError("invalid_request", {
          message: "currentPassword: is required once a password is set",
          data: { fields: [{ field: "currentPassword", message: "is required once a password is set" }] },
        });
      }
      await this.spendPasswordGuess({ userId: auth.userId });
      if (!(await verifyPassword(input.currentPassword, credentials.passwordHash))) throw new AppError("invalid_credentials");
    }
    const user = await this.store.setPassword(auth.userId, await hashPassword(input.newPassword), new Date(this.now()).toISOString());
    if (!user) throw new AppError("user_disabled");
    this.logger.info({ event: "password_changed", userId: user.id }, "password changed");
    // A session another game of the studio holds may be the one the new password is meant to shut out.
    await this.sessions.endSession(user.id, "password_change");
    return this.startSession(user, auth.app, "password_change");
  }

  /**
   * For operators' tooling (no public route): disabling a user (status other than 1) ends their
   * session at once, which also disconnects their room clients.
   */
  async setUserStatus(userId: string, status: number): Promise<User> {
    const user = await this.store.setStatus(userId, status);
    if (!user) throw new AppError("user_disabled", { message: "No such user" });
    if (status !== USER_STATUS_ACTIVE) await this.sessions.endSession(userId, "user_disabled");
    return user;
  }

  /**
   * The player erases their own account (PIPL, store review rules): only from a login of the
   * last RECENT_LOGIN_SEC, so an old stolen token cannot destroy an account.
   */
  private readonly erasers: Array<(userId: string) => Promise<void>> = [];
  private marks: ErasureMarks | undefined;

  /** Registers what else an erase removes (per-user data of other stores); runs before the user goes. */
  onErase(erase: (userId: string) => Promise<void>): void {
    this.erasers.push(erase);
  }

  async deleteOwnAccount(auth: AuthContext): Promise<void> {
    await requireGradeToErase(auth, this.store);
    const ageSec = Math.floor(this.now() / 1000) - auth.authTime;
    if (ageSec > this.options.recentLoginSec) {
      throw new AppError("recent_login_required", { message: "Deleting the account needs a login from the last few minutes; log in again" });
    }
    if (!(await this.eraseUser(auth.userId))) throw new AppError("user_disabled");
    this.logger.info({ event: "account_deleted", userId: auth.userId }, "account deleted by its owner");
  }

  /**
   * Disables a user, with an end for a ban. A restriction already in force ends the session at once,
   * which also disconnects the user's room clients on every process.
   */
  async disableUser(userId: string, restriction: { reason: string; until: string | null }): Promise<User> {
    const user = await this.store.disableUser(userId, restriction, new Date(this.now()).toISOString());
    if (!user) throw new AppError("user_disabled", { message: "No such user" });
    if (user.status !== USER_STATUS_ACTIVE) await this.sessions.endSession(userId, "user_disabled");
    return user;
  }

  async enableUser(userId: string): Promise<User> {
    const user = await this.store.enableUser(userId, new Date(this.now()).toISOString());
    if (!user) throw new AppError("user_disabled", { message: "No such user" });
    return user;
  }

  /**
   * Where erases are marked before anything is deleted (the economy store's database): the writes
   * of the user's requests still in flight, on any process, check the mark after they land and
   * remove themselves (erase-fence.ts), and a sweep finishes an erase that stopped half-way.
   */
  trackErasesIn(marks: ErasureMarks): void {
    this.marks = marks;
  }

  /**
   * Erases the user: marks it (so a write of a request already in flight is removed and refused),
   * ends its sessions (so no new request passes), removes what every store keeps about it and the
   * user with its identities, and forgets its per-user counters in the cache. Room clients are
   * disconnected. A later login with the same platform identity makes a new user. Safe to run
   * again: an erase stopped half-way (crash, failed delete) is finished by the next run or the sweep
   * (EraseSweep). Returns false when there was no such user.
   */
  async eraseUser(userId: string): Promise<boolean> {
    await this.marks?.mark(userId, new Date(this.now()).toISOString());
    const deleted = await this.runErase(userId);
    await this.marks?.finish(userId, new Date(this.now()).toISOString());
    return deleted;
  }

  /** Runs the steps of an erase already marked (the sweep's redo); false when the user was gone already. */
  async runErase(userId: string): Promise<boolean> {
    await this.sessions.endSession(userId, "user_deleted");
    // What other stores keep about the user (the economy's wallet, inventory and ledger) goes first:
    // the mark outlives the erase, but the user's username finds nothing once the user is gone.
    for (const erase of this.erasers) await erase(userId);
    const existing = await this.store.findById(userId);
    const deleted = await this.store.deleteUser(userId);
    // A login that started before the first end may have written a session since.
    await this.sessions.endSession(userId, "user_deleted");
    const buckets = [`user:matchmake:${userId}`, `user:session_check:${userId}`, `user:phone_number:${userId}`, passwordBudget({ userId })];
    if (existing) buckets.push(passwordBudget({ unknown: { username: existing.username } }), passwordBudget({ unknown: { email: existing.email } }));
    await this.limiter.forget(...buckets);
    return deleted;
  }

  /**
   * One budget of password guesses per account (RATE_LIMIT_ACCOUNT_MAX per window), whichever
   * identifier (username or email, any letter case) or route (login, password change) the guess
   * comes through. An identifier that names no account gets a budget of its own, so probing for
   * accounts is limited too, without giving a real account a second budget.
   */
  private spendPasswordGuess(account: PasswordBudgetOwner): Promise<void> {
    return this.limiter.hit(passwordBudget(account), this.options.accountMax, this.options.accountWindowSec);
  }

  private async requireCredentials(userId: string): Promise<UserCredentials> {
    const credentials = await this.store.findCredentialsById(userId);
    if (!credentials || credentials.user.status !== USER_STATUS_ACTIVE) throw await userDisabledError(this.store, credentials?.user.id);
    return credentials;
  }

  private async startSession(user: User, app: string, reason: "new_login" | "password_change"): Promise<SessionWithUser> {
    // Registration, a password login and a password change all prove the password: full grade.
    const { token, refreshToken, expiresIn } = await this.sessions.startSession(user, app, "full", reason);
    return { token, refreshToken, expiresIn, user };
  }
}

type PasswordBudgetOwner = { userId: string } | { unknown: { username: string } | { email: string } };

/** The rate-limit bucket of a password budget: the user id, or the normalised unknown identifier. */
function passwordBudget(owner: PasswordBudgetOwner): string {
  if ("userId" in owner) return `account:id:${owner.userId}`;
  const id = owner.unknown;
  return "username" in id ? `account:u:${id.username.trim().toLowerCase()}` : `account:e:${id.email.trim().toLowerCase()}`;
}
