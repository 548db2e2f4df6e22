/**
 * The room edge of operators' mutes (src/services/mute-service.ts): in one line,
 * `if (!(await mayChat(client))) return;` before a chat message is shown to anyone.
 */
import { AppError } from "../src/core/errors";
import { playerOf, type PlayerClient } from "./AuthenticatedRoom";
import { roomServices } from "./room-services";

/**
 * True when the player may chat. Otherwise the sender has received `error` with `code: "muted"`,
 * a message and `until` (when the mute ends), or the failure's code, and the text must be dropped.
 */
export async function mayChat(client: PlayerClient): Promise<boolean> {
  const { mutes, logger } = roomServices();
  try {
    await mutes.requireUnmuted(playerOf(client).userId);
    return true;
  } catch (err) {
    if (!(err instanceof AppError)) logger.error({ err }, "the mute check failed unexpectedly");
    // Refused while the check cannot be made: a mute must not lapse because the cache is down.
    const { code, message, data } = err instanceof AppError ? err : new AppError("service_unavailable");
    client.send("error", { code, message, ...data });
    return false;
  }
}
