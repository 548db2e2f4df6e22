/**
 * The presence channel on which "this user's session changed" travels between processes: every
 * server process listens (rooms/session-guard.ts) and re-checks that user's room clients; the
 * servers and `npm run admin` publish the user id on it.
 */
export const SESSION_CHANGED_TOPIC = "minigame:session-changed";
