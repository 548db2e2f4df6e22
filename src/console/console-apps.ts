/** The `app` every per-app console route takes and its check against the apps this server serves; the player check of the routes that name one. */
import { z } from "zod";
import { AppError } from "../core/errors";
import type { Services } from "../services/services";

export const appQuery = z.object({ app: z.string().min(1).max(64).default("default") });

export function knownApp(services: Services, app: string): string {
  if (!services.platformApps.appKeys.includes(app)) throw new AppError("unknown_app", { message: `No app ${app} here` });
  return app;
}

/** A player the store holds; an erased or made-up id is refused as the players screen refuses it. */
export async function knownPlayer(services: Services, userId: string): Promise<string> {
  if (!(await services.store.findById(userId))) throw new AppError("player_not_found");
  return userId;
}
