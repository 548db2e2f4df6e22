/**
 * Operator accounts: created, listed, disabled and reset by `npm run admin -- operator …` (and by
 * admins in the console), each with a one-time password the operator replaces at first sign-in.
 * Passwords are hashed with scrypt (password-hasher.ts); nothing here returns a hash or a seed
 * except the one-time password and TOTP link handed to the person who creates the account.
 */
import crypto from "node:crypto";
import { AppError } from "../../core/errors";
import { OPERATOR_ROLES, type Operator, type OperatorRole, type OperatorStore } from "../../core/ports/operator-store";
import { hashPassword, verifyPassword } from "../password-hasher";
import { newTotpSecret, otpauthUri } from "./totp";

/** What a console page or the CLI may show of an operator. */
export interface OperatorView {
  id: string;
  name: string;
  role: OperatorRole;
  disabled: boolean;
  mustChangePassword: boolean;
  totp: boolean;
  createdAt: string;
  updatedAt: string;
}

/** Handed out once, to whoever created or reset the account; never stored in the clear. */
export interface OneTimeCredentials {
  operator: OperatorView;
  initialPassword: string;
  /** The TOTP link for the authenticator app, when a second factor was set up. */
  totpUri?: string;
}

export const OPERATOR_NAME = /^[a-z0-9][a-z0-9._-]{1,62}$/;
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 200;
export const TOTP_ISSUER = "Arena console";

export function viewOf(op: Operator): OperatorView {
  return { id: op.id, name: op.name, role: op.role, disabled: op.disabled, mustChangePassword: op.mustChangePassword, totp: op.totpSecret !== null, createdAt: op.createdAt, updatedAt: op.updatedAt };
}

export function passwordProblem(password: unknown): string | undefined {
  if (typeof password !== "string") return "must be a string";
  if (password.length < PASSWORD_MIN) return `must be at least ${PASSWORD_MIN} characters`;
  if (password.length > PASSWORD_MAX) return `must be at most ${PASSWORD_MAX} characters`;
  return undefined;
}

export class OperatorAccounts {
  constructor(
    private readonly store: OperatorStore,
    private readonly options: { production: boolean; now?: () => number },
  ) {}

  private nowIso(): string {
    return new Date((this.options.now ?? Date.now)()).toISOString();
  }

  /** Admins must have a second factor in production; elsewhere it is asked for with `totp`. */
  private wantsTotp(role: OperatorRole, totp: boolean): boolean {
    return totp || (this.options.production && role === "admin");
  }

  async add(name: string, role: OperatorRole, options: { totp?: boolean } = {}): Promise<OneTimeCredentials> {
    const normalized = name.trim().toLowerCase();
    if (!OPERATOR_NAME.test(normalized)) throw new AppError("invalid_request", { message: "name: 2-63 of a-z 0-9 . _ -, starting with a letter or digit" });
    if (!OPERATOR_ROLES.includes(role)) throw new AppError("invalid_request", { message: `role: one of ${OPERATOR_ROLES.join(", ")}` });
    const initialPassword = oneTimePassword();
    const totpSecret = this.wantsTotp(role, options.totp ?? false) ? newTotpSecret() : null;
    const created = await this.store.createOperator({
      id: crypto.randomUUID(),
      name: normalized,
      role,
      passwordHash: await hashPassword(initialPassword),
      mustChangePassword: true,
      totpSecret,
      createdAt: this.nowIso(),
    });
    if (created === "name_taken") throw new AppError("account_exists", { message: `An operator named ${normalized} exists` });
    return { operator: viewOf(created), initialPassword, totpUri: totpSecret ? otpauthUri(TOTP_ISSUER, normalized, totpSecret) : undefined };
  }

  async list(): Promise<OperatorView[]> {
    return (await this.store.list()).map(viewOf);
  }

  async require(name: string): Promise<Operator> {
    const op = await this.store.findByName(name.trim().toLowerCase());
    if (!op) throw new AppError("invalid_request", { message: `No operator named ${name}` });
    return op;
  }

  /**
   * Refuses a change that would leave no active admin (a demotion or disable of the last one): then
   * no one could manage operators in the console. Read, then written: two admins demoting each other
   * at the same instant could both pass, which `operator role <name> admin` on the CLI repairs.
   */
  private async keepAnAdmin(op: Operator, after: { role?: OperatorRole; disabled?: boolean }): Promise<void> {
    const activeAdmin = (o: { role: OperatorRole; disabled: boolean }) => o.role === "admin" && !o.disabled;
    if (!activeAdmin(op) || activeAdmin({ role: after.role ?? op.role, disabled: after.disabled ?? op.disabled })) return;
    if (!(await this.store.list()).some((other) => other.id !== op.id && activeAdmin(other))) throw new AppError("last_admin");
  }

  /** Disables (or enables again) and ends the operator's sessions; never the last active admin. */
  async setDisabled(name: string, disabled: boolean): Promise<OperatorView> {
    const op = await this.require(name);
    await this.keepAnAdmin(op, { disabled });
    const updated = await this.store.update(op.id, { disabled, sessionEpoch: op.sessionEpoch + 1 }, this.nowIso());
    return viewOf(updated ?? op);
  }

  /** Ends every session of the operator (a lost laptop, a shared screen) without disabling them. */
  async endSessions(name: string): Promise<OperatorView> {
    const op = await this.require(name);
    const updated = await this.store.update(op.id, { sessionEpoch: op.sessionEpoch + 1 }, this.nowIso());
    return viewOf(updated ?? op);
  }

  async setRole(name: string, role: OperatorRole): Promise<OperatorView> {
    if (!OPERATOR_ROLES.includes(role)) throw new AppError("invalid_request", { message: `role: one of ${OPERATOR_ROLES.join(", ")}` });
    const op = await this.require(name);
    await this.keepAnAdmin(op, { role });
    const updated = await this.store.update(op.id, { role, sessionEpoch: op.sessionEpoch + 1 }, this.nowIso());
    return viewOf(updated ?? op);
  }

  /** A new one-time password (and a new TOTP seed when asked or required), ending every session. */
  async reset(name: string, options: { totp?: boolean } = {}): Promise<OneTimeCredentials> {
    const op = await this.require(name);
    const initialPassword = oneTimePassword();
    const totpSecret = this.wantsTotp(op.role, options.totp ?? false) ? newTotpSecret() : op.totpSecret;
    const changed = options.totp || totpSecret !== op.totpSecret;
    const updated = await this.store.update(
      op.id,
      { passwordHash: await hashPassword(initialPassword), mustChangePassword: true, totpSecret, sessionEpoch: op.sessionEpoch + 1 },
      this.nowIso(),
    );
    return { operator: viewOf(updated ?? op), initialPassword, totpUri: changed && totpSecret ? otpauthUri(TOTP_ISSUER, op.name, totpSecret) : undefined };
  }

  /** The operator's own change: the current password proves it is them; other sessions end. */
  async changePassword(operatorId: string, current: string, next: string): Promise<Operator> {
    const op = await this.store.findById(operatorId);
    if (!op || op.disabled) throw new AppError("console_sign_in_required");
    if (!(await verifyPassword(current, op.passwordHash))) throw new AppError("invalid_credentials", { message: "The current password is wrong" });
    const problem = passwordProblem(next);
    if (problem) throw new AppError("invalid_request", { message: `newPassword: ${problem}`, data: { fields: [{ field: "newPassword", message: problem }] } });
    if (next === current) throw new AppError("invalid_request", { message: "newPassword: must differ from the current one" });
    const updated = await this.store.update(op.id, { passwordHash: await hashPassword(next), mustChangePassword: false, sessionEpoch: op.sessionEpoch + 1 }, this.nowIso());
    if (!updated) throw new AppError("console_sign_in_required");
    return updated;
  }
}

/** 20 characters from an alphabet without look-alikes (~118 bits). */
function oneTimePassword(): string {
  const alphabet = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  const bytes = crypto.randomBytes(20);
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join("");
}
