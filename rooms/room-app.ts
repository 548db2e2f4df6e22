/**
 * Rooms per game (app): every room records the app of the player whose join created it, and
 * matchmaking by APP_FILTER only finds rooms of the player's app.
 */
import { matchMaker, type AuthContext as ColyseusAuthContext } from "@colyseus/core";
import { AppError } from "../src/core/errors";

/**
 * The join option onAuth sets to the token's app, over whatever the client sent. Define every
 * room with `.filterBy(APP_FILTER)` so matchmaking only finds rooms of the player's app.
 */
export const APP_OPTION = "app";
export const APP_FILTER = [APP_OPTION];

/** The app a room listing names (Colyseus 0.18 keeps filter fields in its metadata); undefined for a room not defined with APP_FILTER. */
export function listedApp(listing: { metadata?: unknown } | undefined): string | undefined {
  const app = (listing?.metadata as Record<string, unknown> | undefined)?.[APP_OPTION];
  return typeof app === "string" ? app : undefined;
}

/**
 * A join by room id names the room itself: refused when it is another app's (joinOrCreate, join and
 * create only ever find the token's app's rooms, through APP_FILTER).
 */
export async function refuseOtherAppsRoom(context: ColyseusAuthContext, app: string): Promise<void> {
  // Our matchmaking handler passes the IncomingMessage (a path); Colyseus's own, a Request (a whole URL).
  const url = String((context.req as { url?: unknown } | undefined)?.url ?? "");
  const [method, roomId] = url.replace(/^[a-z]+:\/\/[^/]*/i, "").split("?")[0].split("/").slice(2);
  if (method !== "joinById" || !roomId) return;
  const id = decodedRoomId(roomId);
  // A room of this process answers from memory; only a room elsewhere costs a presence round trip.
  const local = matchMaker.getLocalRoomById(id) as unknown as { _listing?: RoomListing } | undefined;
  const listing = local?._listing ?? (await matchMaker.getRoomById(id));
  // Only rooms defined with APP_FILTER list their app; any other is left to onJoin's check.
  const roomApp = listedApp(listing);
  if (roomApp !== undefined && roomApp !== app) throw new AppError("app_mismatch");
}

type RoomListing = NonNullable<Awaited<ReturnType<typeof matchMaker.getRoomById>>>;

/** The room id of the path; a malformed percent-encoding (`%ZZ`) is the client's mistake, 400. */
function decodedRoomId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new AppError("invalid_request", { message: "The room id is not valid percent-encoding" });
  }
}
