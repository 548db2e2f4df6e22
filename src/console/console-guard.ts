/**
 * The console's request rules: the session cookie, the CSRF token on every change, the role an
 * action needs, and one audit entry per attempted change whatever its outcome (refusals included).
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { AppError } from "../core/errors";
import type { OperatorRole } from "../core/ports/operator-store";
import { sendOk } from "../http/envelope";
import type { AuditLog } from "../services/console/audit-log";
import { csrfMatches, type ConsoleSession, type ConsoleSessions } from "../services/console/console-sessions";

export const COOKIE_NAME = "arena_console";
export const CSRF_HEADER = "x-csrf-token";
const RANK: Record<OperatorRole, number> = { viewer: 0, support: 1, admin: 2 };

export interface CookieRules {
  secure: boolean;
}

/** The session cookie: HttpOnly, SameSite=Strict, scoped to /console, Secure in production. */
export function sessionCookie(token: string, maxAgeSec: number, rules: CookieRules): string {
  return [`${COOKIE_NAME}=${token}`, "Path=/console", "HttpOnly", "SameSite=Strict", `Max-Age=${maxAgeSec}`, ...(rules.secure ? ["Secure"] : [])].join("; ");
}

export function clearedCookie(rules: CookieRules): string {
  return sessionCookie("", 0, rules);
}

export function cookieToken(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === COOKIE_NAME) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/** What a change handler returns: whom it touched, public facts for the audit, and the answer. */
export interface ChangeOutcome {
  target: string | null;
  detail?: Record<string, unknown>;
  result: unknown;
  /** Set a cookie or other header before answering (sign-in, password change). */
  headers?: Record<string, string>;
  /** `repeated` when the change was made before under the same id (a grant replay): nothing new happened. */
  outcome?: "ok" | "repeated";
}

export type SessionRequest = Request & { consoleSession?: ConsoleSession };

const ATTEMPT_FIELDS = ["orderId", "grantId", "debitId", "coins", "platform", "app", "currencies", "items", "reason", "mailId", "title", "userId", "expiresAt"];

/** The public facts of an attempted change, as sent (validated later): what a `started` entry keeps. */
function attemptDetail(req: Request): Record<string, unknown> {
  const detail: Record<string, unknown> = { ...req.params };
  const body = req.body as unknown;
  if (body && typeof body === "object" && !Array.isArray(body)) {
    for (const field of ATTEMPT_FIELDS) {
      const value = (body as Record<string, unknown>)[field];
      if (value !== undefined && JSON.stringify(value).length <= 2000) detail[field] = value;
    }
  }
  return detail;
}

export class ConsoleGuard {
  constructor(
    private readonly sessions: ConsoleSessions,
    private readonly audit: AuditLog,
  ) {}

  /** Loads the session; 401 without one. An operator with a one-time password may do nothing else until it is changed. */
  session(options: { allowPasswordChange?: boolean } = {}): RequestHandler {
    return async (req: SessionRequest, _res: Response, next: NextFunction) => {
      try {
        const session = await this.sessions.authenticate(cookieToken(req));
        if (!session) throw new AppError("console_sign_in_required");
        if (session.operator.mustChangePassword && !options.allowPasswordChange) throw new AppError("console_password_change_required");
        req.consoleSession = session;
        next();
      } catch (err) {
        next(err);
      }
    };
  }

  /** A read: the session and the role, no audit entry. */
  read(role: OperatorRole, handler: (req: SessionRequest, session: ConsoleSession, res: Response) => Promise<unknown>): RequestHandler[] {
    return [
      this.session(),
      async (req: SessionRequest, res: Response, next: NextFunction) => {
        try {
          const session = req.consoleSession!;
          if (RANK[session.operator.role] < RANK[role]) throw new AppError("console_role_forbidden", { data: { needs: role } });
          const result = await handler(req, session, res);
          if (!res.headersSent) sendOk(res, result);
        } catch (err) {
          next(err);
        }
      },
    ];
  }

  /**
   * A change: CSRF token, role, then the handler; every attempt past sign-in is audited with its
   * outcome (a refusal by CSRF or role too). `action` names what was tried, e.g. `order.refund`.
   */
  change(action: string, role: OperatorRole, handler: (req: SessionRequest, session: ConsoleSession) => Promise<ChangeOutcome>, options: { allowPasswordChange?: boolean; recordAttempt?: boolean } = {}): RequestHandler[] {
    return [
      this.session(options),
      async (req: SessionRequest, res: Response, next: NextFunction) => {
        const session = req.consoleSession!;
        const actor = session.operator.name;
        // Whom a refusal or failure is about: the player, or the operator of an operator route.
        const named = req.params.userId ?? req.params.name;
        const target = typeof named === "string" ? named : null;
        try {
          if (!csrfMatches(session, req.headers[CSRF_HEADER])) {
            await this.audit.record({ actor, via: "console", action, target, outcome: "refused", detail: { code: "console_csrf_invalid" } });
            throw new AppError("console_csrf_invalid");
          }
          if (RANK[session.operator.role] < RANK[role]) {
            await this.audit.record({ actor, via: "console", action, target, outcome: "refused", detail: { code: "console_role_forbidden", role: session.operator.role, needs: role } });
            throw new AppError("console_role_forbidden", { data: { needs: role } });
          }
        } catch (err) {
          return next(err);
        }
        // A refund, grant or erase the process dies in (kill -9, a lost answer) stays on record as started.
        if (options.recordAttempt) await this.audit.record({ actor, via: "console", action, target, outcome: "started", detail: attemptDetail(req) });
        let outcome: ChangeOutcome;
        try {
          outcome = await handler(req, session);
        } catch (err) {
          const refused = err instanceof AppError && err.status < 500;
          const code = err instanceof AppError ? err.code : "internal_error";
          await this.audit.record({ actor, via: "console", action, target, outcome: refused ? "refused" : "failed", detail: { code } });
          return next(err);
        }
        await this.audit.record({ actor, via: "console", action, target: outcome.target, outcome: outcome.outcome ?? "ok", detail: outcome.detail });
        for (const [name, value] of Object.entries(outcome.headers ?? {})) res.setHeader(name, value);
        sendOk(res, outcome.result);
      },
    ];
  }
}
