import type { NextFunction, Request, RequestHandler, Response } from "express";
import { bearerToken } from "../core/credentials";
import { AppError } from "../core/errors";
import type { User } from "../core/user";
import type { AuthContext, SessionService } from "../services/session-service";

interface Authenticated {
  auth: AuthContext;
  user: User;
  token: string;
}

/** Bearer middleware over the shared `verifyAccessToken`; the result is read with `authOf(res)`. */
export function requireAuth(sessions: SessionService): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const token = bearerToken(req.header("authorization"));
    if (!token) return next(new AppError("token_missing"));
    const { auth, user } = await sessions.verifyAccessToken(token);
    res.locals.authenticated = { auth, user, token } satisfies Authenticated;
    next();
  };
}

export function authOf(res: Response): Authenticated {
  const value = res.locals.authenticated as Authenticated | undefined;
  if (!value) throw new Error("route is missing requireAuth");
  return value;
}
