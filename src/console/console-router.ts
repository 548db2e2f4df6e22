/**
 * The operator console at /console: its page and scripts (public/console, served from this process,
 * nothing from another host) and its JSON routes under /console/api with the API's envelope and
 * error codes. Sign-in by an HttpOnly, SameSite=Strict cookie; every change carries the session's
 * CSRF token and is audited (console-guard.ts). docs/console.md tells operators how to run it.
 */
import fs from "node:fs";
import path from "node:path";
import express, { Router, type NextFunction, type Request, type Response } from "express";
import { projectRoot } from "../config/settings-files";
import { AppError } from "../core/errors";
import { OPERATOR_ROLES, type OperatorStore } from "../core/ports/operator-store";
import { sendOk } from "../http/envelope";
import { parseInput } from "../http/validate";
import type { Services } from "../services/services";
import { AuditLog, auditCsv } from "../services/console/audit-log";
import { ConsolePlayers } from "../services/console/console-players";
import { ConsoleSessions } from "../services/console/console-sessions";
import { OperatorAccounts, viewOf } from "../services/console/operator-accounts";
import { buildUserExport, type UserExport } from "../services/user-export";
import { clearedCookie, ConsoleGuard, cookieToken, sessionCookie, type CookieRules } from "./console-guard";
import { consoleApps, consoleHealth } from "./console-health";
import { consolePlayerRoutes } from "./console-player-routes";
import { consoleOperatorRoutes } from "./console-operators";
import { auditQuery, operatorParam, passwordBody, roleBody, signInBody } from "./console-schemas";
import { BUILT_IN_SCREENS, type ConsoleScreen } from "./console-screens";
import { rewardsScreen } from "./console-rewards";
import { economyScreen, mailScreen } from "./console-economy";
import { leaderboardsScreen } from "./console-leaderboards";
import { savesScreen } from "./console-saves";
import { analyticsScreen } from "./console-analytics";
import { douyinLiveScreen } from "./console-douyin-live";
import { liveopsScreen } from "./console-liveops";
import { orderQueueRoutes } from "./console-order-queue";
import { playerPageRoutes } from "./console-player-page";
import { supportScreen } from "./console-support";

/** Screens of other capabilities, each shown where its capability is wired (`available`). */
const PLUGGED_SCREENS: ConsoleScreen[] = [economyScreen, mailScreen, rewardsScreen, leaderboardsScreen, savesScreen, analyticsScreen, liveopsScreen, douyinLiveScreen, supportScreen];

const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
};

export interface ConsoleEdge {
  router: Router;
  sessions: ConsoleSessions;
  audit: AuditLog;
}

export function consoleRoutes(services: Services, operators: OperatorStore, screens: ConsoleScreen[] = [...BUILT_IN_SCREENS, ...PLUGGED_SCREENS]): ConsoleEdge {
  const { config, logger } = services;
  const production = config.env === "production";
  const audit = new AuditLog(operators, logger);
  const sessions = new ConsoleSessions(operators, services.cache, audit, { ...config.console, adminNeedsTotp: production });
  const accounts = new OperatorAccounts(operators, { production });
  const guard = new ConsoleGuard(sessions, audit);
  const players = new ConsolePlayers({ ...services, userExport: serverUserExport(services) });
  const cookies: CookieRules = { secure: production };
  const router = Router();

  router.use("/console", (req: Request, res: Response, next: NextFunction) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    // The API's CORS (CORS_ORIGINS) is for game clients; no other origin may read the console's answers.
    for (const name of ["Access-Control-Allow-Origin", "Access-Control-Allow-Credentials", "Access-Control-Expose-Headers"]) res.removeHeader(name);
    next();
  });

  const api = Router();
  api.use(async (req: Request, res: Response, next: NextFunction) => {
    res.setHeader("Cache-Control", "no-store");
    // Behind the TLS proxy only (TRUST_PROXY makes req.secure follow X-Forwarded-Proto).
    if (production && !req.secure) return next(new AppError("console_https_required"));
    // A browser always names the page's origin on a cross-site change; SameSite=Strict already keeps
    // the cookie off it, this refuses it outright. The host compared is the one the browser used,
    // so a proxy must pass it on whole (nginx: `$http_host`, which keeps a port other than 443).
    const origin = req.headers.origin;
    const expected = `${req.protocol}://${req.headers.host}`;
    if (req.method !== "GET" && req.method !== "HEAD" && origin && origin !== expected) {
      try {
        await refuseForeignOrigin(req, origin, expected);
      } catch (err) {
        return next(err);
      }
    }
    next();
  });
  api.use(express.json({ limit: "16kb", strict: true }));

  /** Audits a change from another origin (the signed-in operator if the cookie came along) and throws its refusal. */
  async function refuseForeignOrigin(req: Request, origin: string, expected: string): Promise<never> {
    const session = await sessions.authenticate(cookieToken(req)).catch(() => null);
    await audit.record({ actor: session?.operator.name ?? "anonymous", via: "console", action: "request.foreign_origin", target: null, outcome: "refused", detail: { code: "console_csrf_invalid", method: req.method, path: req.path, origin, host: req.headers.host ?? null } });
    throw new AppError("console_csrf_invalid", {
      message: `The request comes from ${origin}, another origin than this console's (${expected}). Behind a proxy, pass the browser's Host header on unchanged (nginx: proxy_set_header Host $http_host)`,
    });
  }

  api.get("/session", guard.session({ allowPasswordChange: true }), (req: Request & { consoleSession?: any }, res: Response) => {
    const session = req.consoleSession!;
    sendOk(res, { operator: viewOf(session.operator), csrfToken: session.csrfToken, expiresAt: new Date(session.expiresAt).toISOString() });
  });
  api.post("/session", async (req: Request, res: Response, next: NextFunction) => {
    try {
      const body = parseInput(signInBody, req.body ?? {});
      const { token, session } = await sessions.signIn(body, req.ip ?? "unknown");
      res.setHeader("Set-Cookie", sessionCookie(token, config.console.sessionTtlSec, cookies));
      sendOk(res, { operator: viewOf(session.operator), csrfToken: session.csrfToken, expiresAt: new Date(session.expiresAt).toISOString() });
    } catch (err) {
      next(err);
    }
  });
  api.delete(
    "/session",
    ...guard.change(
      "session.sign_out",
      "viewer",
      async (_req, session) => {
        await sessions.end(session.id);
        return { target: session.operator.name, result: { signedOut: true }, headers: { "Set-Cookie": clearedCookie(cookies) } };
      },
      { allowPasswordChange: true },
    ),
  );
  api.post(
    "/password",
    ...guard.change(
      "operator.change_password",
      "viewer",
      async (req, session) => {
        const body = parseInput(passwordBody, req.body ?? {});
        const updated = await accounts.changePassword(session.operator.id, body.currentPassword, body.newPassword);
        const renewed = await sessions.renew(session, updated);
        return {
          target: updated.name,
          result: { operator: viewOf(updated), csrfToken: renewed.session.csrfToken, expiresAt: new Date(renewed.session.expiresAt).toISOString() },
          headers: { "Set-Cookie": sessionCookie(renewed.token, config.console.sessionTtlSec, cookies) },
        };
      },
      { allowPasswordChange: true },
    ),
  );

  api.get("/screens", ...guard.read("viewer", async (_req, session) => {
    const rank = OPERATOR_ROLES.indexOf(session.operator.role);
    return screens.filter((s) => OPERATOR_ROLES.indexOf(s.role) <= rank && (s.available?.(services) ?? true)).map(({ id, title, role }) => ({ id, title, role }));
  }));
  api.use(consolePlayerRoutes(players, guard, audit, config.console.supportGrantMax));
  api.get("/health", ...guard.read("viewer", () => consoleHealth(services)));
  api.get("/apps", ...guard.read("viewer", async () => consoleApps(services)));
  api.get("/audit", ...guard.read("support", async (req, _session, res) => {
    const query = parseInput(auditQuery, req.query);
    const entries = await audit.search({ ...query, since: query.since && new Date(query.since).toISOString(), until: query.until && new Date(query.until).toISOString() });
    if (query.format !== "csv") return entries;
    res.setHeader("Content-Type", "text/csv; charset=utf-8");
    res.setHeader("Content-Disposition", 'attachment; filename="console-audit.csv"');
    res.end(auditCsv(entries));
    return undefined;
  }));
  api.get("/operators", ...guard.read("admin", () => accounts.list()));
  for (const [action, disabled] of [["disable", true], ["enable", false]] as const) {
    api.post(`/operators/:name/${action}`, ...guard.change(`operator.${action}`, "admin", async (req, session) => {
      const { name } = parseInput(operatorParam, req.params);
      if (name.toLowerCase() === session.operator.name && disabled) throw new AppError("invalid_request", { message: "You cannot disable yourself" });
      return { target: name, result: await accounts.setDisabled(name, disabled) };
    }));
  }
  api.post("/operators/:name/end-sessions", ...guard.change("operator.end_sessions", "admin", async (req) => {
    const { name } = parseInput(operatorParam, req.params);
    return { target: name, result: await accounts.endSessions(name) };
  }));
  api.post("/operators/:name/role", ...guard.change("operator.role", "admin", async (req) => {
    const { name } = parseInput(operatorParam, req.params);
    const { role } = parseInput(roleBody, req.body ?? {});
    return { target: name, detail: { role }, result: await accounts.setRole(name, role) };
  }));
  api.use(consoleOperatorRoutes(accounts, sessions, guard));
  for (const screen of screens) screen.routes?.(api, { services, guard, audit });
  // The players and orders screens' own routes: the player page and the queue of orders needing a person.
  if (screens.some((s) => s.id === "players")) playerPageRoutes(api, { services, guard, audit });
  if (screens.some((s) => s.id === "orders")) orderQueueRoutes(api, { services, guard, audit });

  router.use("/console/api", api);
  router.use("/console", express.static(consoleDir(), { index: "index.html", fallthrough: true, redirect: false }));
  router.get("/console", (_req, res) => res.sendFile(path.join(consoleDir(), "index.html")));
  return { router, sessions, audit };
}

/** The export `npm run admin -- export` gives, from this process's open stores (admin-context.ts builds the CLI's). */
function serverUserExport(services: Services): UserExport {
  return buildUserExport({
    store: services.store,
    sessions: services.sessions,
    ledger: async () => services.payments.ledger,
    economy: async () => services.economy.store,
    leaderboardRecords: async (userId) => {
      const perApp = await Promise.all(services.platformApps.appKeys.map(async (app) => (await services.leaderboards.recordsOf(app, userId)).map((record) => ({ app, ...record }))));
      return perApp.flat();
    },
    rewards: async () => services.rewardSources.stores,
    saves: async () => services.saves,
    supportMessages: (userId) => services.support.recordsOf(userId),
    liveops: (userId) => services.liveops.recordsOf(userId),
    analytics: async () => services.analytics.store,
  });
}

/** `public/console` next to `src/` when run with tsx, and two levels up from `build/src/` when built. */
function consoleDir(): string {
  const dir = path.join(projectRoot(), "public", "console");
  if (!fs.existsSync(path.join(dir, "index.html"))) throw new Error(`console files not found in ${dir}`);
  return dir;
}
