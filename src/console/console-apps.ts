/** The `app` every per-app console route takes, and its check against the apps this server serves. */
import { z } from "zod";
import { AppError } from "../core/errors";
import type { Services } from "../server/container";

export const appQuery = z.object({ app: z.string().min(1).max(64).default("default") });

export function knownApp(services: Services, app: string): string {
  if (!services.platformApps.appKeys.includes(app)) throw new AppError("unknown_app", { message: `No app ${app} here` });
  return app;
}
