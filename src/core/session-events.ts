/**
 * The presence channel on which "this user's session changed" travels between processes: every
 * server process listens (rooms/session-guard.ts) and re-checks that user's room clients; the
 * servers and `npm run admin` publish the user id on it. Changes to what processes keep copies of
 * (user records, platform access tokens) travel on it too.
 */
export const SESSION_CHANGED_TOPIC = "minigame:session-changed";

/** A message that names one thing by a string under one field: how to write it and how to read it. */
function namingMessage<Field extends string>(field: Field) {
  return {
    write: (value: string) => ({ [field]: value }) as Record<Field, string>,
    /** The string of such a message, or undefined for anything else. */
    readFrom: (message: unknown): string | undefined => {
      const value = typeof message === "object" && message !== null ? (message as Record<string, unknown>)[field] : undefined;
      return typeof value === "string" ? value : undefined;
    },
  };
}

/**
 * The message that says a user's record changed (status, ban, profile, password, identities,
 * erase): every process drops its cached copy. A plain user id on the topic says only that the
 * session changed (a login replaces the previous one), which leaves the record as it is.
 */
const userChanged = namingMessage("userChanged");
export const userChangedMessage = userChanged.write;
export const userChangedIn = userChanged.readFrom;

/**
 * The message that says a process stored or deleted the platform access token kept under this
 * cache key: every process drops its own copy of it (see PlatformTokenService).
 */
const platformTokenChanged = namingMessage("platformTokenChanged");
export const platformTokenChangedMessage = platformTokenChanged.write;
export const platformTokenChangedIn = platformTokenChanged.readFrom;

/**
 * Several messages published as one. Under load a process ends many sessions per event-loop turn
 * (each returning player's login replaces a session), and every process receives every message:
 * one message per login made the cost of a login grow with the number of processes.
 */
export interface BatchMessage {
  batch: unknown[];
}

/** One message for the given ones: a lone message travels as itself, as processes always sent it. */
export function batchOf(messages: readonly unknown[]): unknown {
  return messages.length === 1 ? messages[0] : ({ batch: [...messages] } satisfies BatchMessage);
}

/** The messages a received message carries: a batch's items, else the message itself. */
export function messagesIn(message: unknown): readonly unknown[] {
  const batch = (message as Partial<BatchMessage> | null)?.batch;
  return typeof message === "object" && Array.isArray(batch) ? batch : [message];
}
