/**
 * Console sign-in and sessions. A session is a random token in an HttpOnly cookie; the cache keeps
 * only its SHA-256 (a leaked cache dump signs no one in) with the operator, the operator's session
 * epoch and the session's CSRF token. A session ends on sign-out, after the idle timeout, at its
 * absolute end, and whenever the operator's epoch moves (disable, reset, password change, role).
 * Ten wrong passwords for a name lock it for CONSOLE_LOCKOUT_SEC; each address has its own budget too.
 */
import crypto from "node:crypto";
import { AppError } from "../../core/errors";
import type { Cache } from "../../core/ports/cache";
import type { Operator, OperatorStore } from "../../core/ports/operator-store";
import { hashPassword, verifyPassword } from "../password-hasher";
import type { AuditLog } from "./audit-log";
import { verifyTotp } from "./totp";

export const LOCKOUT_AFTER = 10;
/** Sign-in attempts per client address per minute, whatever the names. */
const ADDRESS_BUDGET = 30;
/** How long the last accepted TOTP step is remembered: longer than any step stays valid (drift included). */
const TOTP_LAST_STEP_TTL_SEC = 180;

export interface ConsoleSession {
  /** The cache key's hash part; ends the session. */
  id: string;
  operator: Operator;
  csrfToken: string;
  expiresAt: number;
}

interface StoredSession {
  operatorId: string;
  epoch: number;
  csrf: string;
  createdAt: number;
  expiresAt: number;
}

export interface ConsoleSessionOptions {
  sessionTtlSec: number;
  idleTimeoutSec: number;
  lockoutSec: number;
  /** Admins need a second factor (production). */
  adminNeedsTotp: boolean;
  now?: () => number;
}

export class ConsoleSessions {
  private readonly now: () => number;
  /** Verified against when the name is unknown, so a wrong name costs as long as a wrong password. */
  private readonly decoy: Promise<string>;

  constructor(
    private readonly store: OperatorStore,
    private readonly cache: Cache,
    private readonly audit: AuditLog,
    private readonly options: ConsoleSessionOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.decoy = hashPassword(crypto.randomBytes(16).toString("hex"));
  }

  async signIn(input: { name: string; password: string; totp?: string }, clientIp: string): Promise<{ token: string; session: ConsoleSession }> {
    const name = input.name.trim().toLowerCase();
    const refuse = async (reason: string, error: AppError): Promise<never> => {
      await this.audit.record({ actor: name || "anonymous", via: "console", action: "session.sign_in", target: name || null, outcome: "refused", detail: { reason, ip: clientIp } });
      throw error;
    };
    const perAddress = await this.cache.increment(`console:signin-ip:${clientIp}`, 60);
    if (perAddress.count > ADDRESS_BUDGET) {
      await refuse("address_rate_limited", new AppError("rate_limited", { headers: { "Retry-After": String(Math.ceil(perAddress.resetInMs / 1000)) } }));
    }
    const failuresKey = `console:signin-fail:${name}`;
    const failures = Number((await this.cache.get(failuresKey)) ?? 0);
    if (failures >= LOCKOUT_AFTER) {
      const ttl = (await this.cache.ttlMs(failuresKey)) ?? this.options.lockoutSec * 1000;
      await refuse("locked", new AppError("operator_locked", { headers: { "Retry-After": String(Math.max(1, Math.ceil(ttl / 1000))) } }));
    }
    const operator = name ? await this.store.findByName(name) : null;
    const passwordOk = await verifyPassword(input.password, operator?.passwordHash ?? (await this.decoy));
    if (!operator || !passwordOk || operator.disabled) {
      const { count } = await this.cache.increment(failuresKey, this.options.lockoutSec);
      if (count === LOCKOUT_AFTER) {
        await this.audit.record({ actor: name, via: "console", action: "operator.lock", target: name, outcome: "ok", detail: { after: LOCKOUT_AFTER, lockoutSec: this.options.lockoutSec, ip: clientIp } });
      }
      await refuse(operator?.disabled && passwordOk ? "disabled" : "wrong_password", new AppError("invalid_credentials", { message: "Wrong operator name or password" }));
    }
    const op = operator!;
    if (op.totpSecret) {
      const step = input.totp ? verifyTotp(op.totpSecret, input.totp.trim(), this.now()) : null;
      // A code is good once, and so is every earlier one: a replayed or older code (shoulder-surfed,
      // logged by a proxy, the previous step still inside the drift window) is refused.
      const fresh = step !== null && (await this.acceptTotpStep(op.id, step));
      if (!fresh) {
        if (input.totp) await this.cache.increment(failuresKey, this.options.lockoutSec);
        await refuse(input.totp ? "totp_wrong" : "totp_missing", new AppError("console_totp_required", { data: { totp: true } }));
      }
    } else if (this.options.adminNeedsTotp && op.role === "admin") {
      await refuse("totp_not_set_up", new AppError("console_totp_required", { message: "Admins need a second factor in production: run npm run admin -- operator reset <name> --totp" }));
    }
    await this.cache.delete(failuresKey);
    const token = crypto.randomBytes(32).toString("base64url");
    const now = this.now();
    const stored: StoredSession = { operatorId: op.id, epoch: op.sessionEpoch, csrf: crypto.randomBytes(24).toString("base64url"), createdAt: now, expiresAt: now + this.options.sessionTtlSec * 1000 };
    await this.write(sessionId(token), stored);
    await this.audit.record({ actor: op.name, via: "console", action: "session.sign_in", target: op.name, outcome: "ok", detail: { ip: clientIp } });
    return { token, session: { id: sessionId(token), operator: op, csrfToken: stored.csrf, expiresAt: stored.expiresAt } };
  }

  /**
   * The enrolment check beside the QR code: a code from the operator's authenticator, against the seed
   * stored for them. A good code is spent like a sign-in's (the next sign-in needs a later one).
   */
  async confirmTotp(operatorId: string, code: string): Promise<boolean> {
    const op = await this.store.findById(operatorId);
    if (!op?.totpSecret) return false;
    const step = verifyTotp(op.totpSecret, code.trim(), this.now());
    return step !== null && (await this.acceptTotpStep(op.id, step));
  }

  /**
   * Moves the operator's last accepted TOTP step forward to `step`, or refuses a step at or before it.
   * A compare-and-set on the shared cache, so two processes never both accept steps out of order.
   * The key outlives every step it could refuse: a step verifies for at most 90 s after it began.
   */
  private async acceptTotpStep(operatorId: string, step: number): Promise<boolean> {
    const lastKey = `console:totp-last:${operatorId}`;
    const entry = [{ key: lastKey, value: String(step), ttlSec: TOTP_LAST_STEP_TTL_SEC }];
    for (let round = 0; round < 5; round++) {
      const last = await this.cache.get(lastKey);
      if (last === null) {
        if (await this.cache.setIfAbsent(lastKey, String(step), TOTP_LAST_STEP_TTL_SEC * 1000)) return true;
        continue;
      }
      if (step <= Number(last)) return false;
      if (await this.cache.replaceIfEquals(lastKey, last, entry)) return true;
    }
    return false;
  }

  /** The live session of a cookie's token, its idle timer restarted; null when there is none. */
  async authenticate(token: string | undefined): Promise<ConsoleSession | null> {
    if (!token || token.length > 100) return null;
    const id = sessionId(token);
    const raw = await this.cache.get(key(id));
    if (!raw) return null;
    let stored: StoredSession;
    try {
      stored = JSON.parse(raw) as StoredSession;
    } catch {
      return null;
    }
    if (stored.expiresAt <= this.now()) {
      await this.cache.delete(key(id));
      return null;
    }
    const operator = await this.store.findById(stored.operatorId);
    if (!operator || operator.disabled || operator.sessionEpoch !== stored.epoch) {
      await this.cache.delete(key(id));
      return null;
    }
    await this.write(id, stored);
    return { id, operator, csrfToken: stored.csrf, expiresAt: stored.expiresAt };
  }

  /** After the operator's own password change: a fresh session at the new epoch replaces this one. */
  async renew(session: ConsoleSession, operator: Operator): Promise<{ token: string; session: ConsoleSession }> {
    await this.end(session.id);
    const token = crypto.randomBytes(32).toString("base64url");
    const now = this.now();
    const stored: StoredSession = { operatorId: operator.id, epoch: operator.sessionEpoch, csrf: crypto.randomBytes(24).toString("base64url"), createdAt: now, expiresAt: now + this.options.sessionTtlSec * 1000 };
    await this.write(sessionId(token), stored);
    return { token, session: { id: sessionId(token), operator, csrfToken: stored.csrf, expiresAt: stored.expiresAt } };
  }

  async end(id: string): Promise<void> {
    await this.cache.delete(key(id));
  }

  private async write(id: string, stored: StoredSession): Promise<void> {
    const remainingSec = Math.ceil((stored.expiresAt - this.now()) / 1000);
    await this.cache.set(key(id), JSON.stringify(stored), Math.max(1, Math.min(this.options.idleTimeoutSec, remainingSec)));
  }
}

export function csrfMatches(session: ConsoleSession, given: unknown): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(given);
  const b = Buffer.from(session.csrfToken);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

function sessionId(token: string): string {
  return crypto.createHash("sha256").update(token).digest("base64url");
}

const key = (id: string) => `console:session:${id}`;
