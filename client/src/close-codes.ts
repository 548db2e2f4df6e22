/** The server closes a room connection with this when the player's session ended (rooms/session-guard.ts). */
export const SESSION_ENDED_CLOSE_CODE = 4401;

/**
 * The server closes the older connection with this when the same player takes a seat again in the
 * same room from a newer join. It is not a logout: the player is still logged in elsewhere.
 * Mirrors rooms/AuthenticatedRoom.ts (test/unit/client-pieces.test.ts holds them equal).
 */
export const SEAT_REPLACED_CLOSE_CODE = 4409;

/** Colyseus: the client left on purpose (`room.leave()`). */
export const CONSENTED_CLOSE_CODE = 4000;

/** Closes that mean the network, not the server or the player, ended the connection: worth a reconnect. */
export function isConnectionLoss(code: number): boolean {
  return code !== 1000 && code < 4000;
}
