import { Router, type Request, type RequestHandler } from "express";
import { DEFAULT_APP } from "../core/apps";
import type { AccountService } from "../services/account-service";
import type { AppIdentities } from "../services/app-identity";
import type { User } from "../core/user";
import type { RateLimiter } from "../services/rate-limiter";
import type { SessionService } from "../services/session-service";
import { authOf, requireAuth } from "./auth-middleware";
import { sendOk } from "./envelope";
import type { HotRoutes } from "./hot-routes";
import { loginBody, passwordChangeBody, profilePatchBody, refreshBody, registerBody } from "./schemas";
import { parseInput } from "./validate";

export interface AccountRouteDeps {
  accounts: AccountService;
  sessions: SessionService;
  limiter: RateLimiter;
  limits: { windowSec: number; ipMax: number };
  placeholderEmailDomain: string;
  /** Shows a player's openid as the token's game knows it; the stored one without it. */
  appIdentities?: AppIdentities;
  /** Where GET /users/me and POST /auth/refresh are also registered by exact path (see hot-routes.ts). */
  hot?: HotRoutes;
}

/** `/auth/*`: register, login and refresh are public (they issue tokens); logout needs one. */
export function authRoutes(deps: AccountRouteDeps): Router {
  const router = Router();
  const perIp = (group: string, req: Request) => deps.limiter.hitAddress(group, req.ip ?? "", deps.limits.ipMax, deps.limits.windowSec);
  const register = registerBody(deps.placeholderEmailDomain);

  router.post("/register", async (req, res) => {
    await perIp("register", req);
    const input = parseInput(register, req.body);
    // Accounts sign in to the default app: a password names no platform app id to tell the game by.
    sendOk(res, await deps.accounts.register(input, DEFAULT_APP), "Registered", 201);
  });

  router.post("/login", async (req, res) => {
    await perIp("login", req);
    const { identifier, password } = parseInput(loginBody, req.body);
    sendOk(res, await deps.accounts.login(identifier, password, DEFAULT_APP), "Login succeeded");
  });

  const refresh: RequestHandler = async (req, res) => {
    await perIp("refresh", req);
    const { refreshToken } = parseInput(refreshBody, req.body);
    const { token, refreshToken: next, expiresIn } = await deps.sessions.refresh(refreshToken);
    sendOk(res, { token, refreshToken: next, expiresIn }, "Token refreshed");
  };
  router.post("/refresh", refresh);
  deps.hot?.post("/auth/refresh", refresh);

  router.post("/logout", requireAuth(deps.sessions), async (_req, res) => {
    const { auth } = authOf(res);
    await deps.sessions.logout(auth.userId, auth.app, auth.sid);
    sendOk(res, {}, "Logged out");
  });
  return router;
}

/** `/users/*`: every route here is protected; the router is mounted behind requireAuth. */
export function userRoutes(deps: AccountRouteDeps): Router {
  const router = Router();
  const auth = requireAuth(deps.sessions);
  router.use(auth);

  // The user as the token's game knows them: its own openid (app-identity.ts).
  const forApp = (user: User, app: string) => deps.appIdentities?.userForApp(user, app) ?? user;

  const me: RequestHandler = async (_req, res) => {
    const { user, auth } = authOf(res);
    sendOk(res, { ...(await forApp(user, auth.app)), app: auth.app });
  };
  router.get("/me", me);
  deps.hot?.get("/users/me", auth, me);

  router.patch("/me", async (req, res) => {
    const { version, ...changes } = parseInput(profilePatchBody, req.body);
    const { auth } = authOf(res);
    sendOk(res, await forApp(await deps.accounts.updateProfile(auth.userId, auth.app, changes, version), auth.app), "Profile updated");
  });

  router.put("/me/password", async (req, res) => {
    const input = parseInput(passwordChangeBody, req.body);
    sendOk(res, await deps.accounts.changePassword(authOf(res).auth, input), "Password changed; a new session started");
  });

  router.delete("/me", async (_req, res) => {
    await deps.accounts.deleteOwnAccount(authOf(res).auth);
    sendOk(res, null, "Account deleted");
  });
  return router;
}
