import type { RuntimeStorage } from "./runtime";

/** The user as the server returns it (spec 2.3); games read what they need. */
export interface ServerUser {
  id: string;
  username: string;
  nickname?: string | null;
  avatar?: string | null;
  version?: number;
  [field: string]: unknown;
}

/** What is kept in the runtime's storage between starts. `session_key` never is. */
export interface Session {
  token: string;
  refreshToken: string;
  /** Seconds the access token was valid for when it was received. */
  expiresIn: number;
  /** Local clock (ms) when it was received: expiry is judged on our clock, never on the token's `exp`. */
  receivedAt: number;
  user: ServerUser;
}

export function sessionExpiresAt(session: Session): number {
  return session.receivedAt + session.expiresIn * 1000;
}

/** Reads and writes the session under one storage key. */
export class SessionStorage {
  constructor(
    private readonly storage: RuntimeStorage,
    private readonly key: string,
  ) {}

  load(): Session | null {
    let raw: string | null;
    try {
      raw = this.storage.get(this.key);
    } catch {
      return null;
    }
    if (!raw) return null;
    try {
      const value = JSON.parse(raw) as Partial<Session>;
      const valid =
        typeof value.token === "string" &&
        typeof value.refreshToken === "string" &&
        typeof value.expiresIn === "number" &&
        typeof value.receivedAt === "number" &&
        !!value.user &&
        typeof value.user.id === "string";
      return valid ? (value as Session) : null;
    } catch {
      return null;
    }
  }

  save(session: Session): void {
    const { token, refreshToken, expiresIn, receivedAt, user } = session;
    this.storage.set(this.key, JSON.stringify({ token, refreshToken, expiresIn, receivedAt, user }));
  }

  clear(): void {
    this.storage.remove(this.key);
  }
}
