/**
 * The server's leaderboards (`/api/leaderboards`, docs/leaderboards.md) for the logged-in player:
 * `client.leaderboard("highscores").top()`, `.aroundMe()`, `.me()`, and `.submit(score)` where the
 * board takes scores from clients (most take them only from the game's server code).
 */
import type { AuthedRequest } from "./payments";

/** One player's place on a board. */
export interface LeaderboardRecord {
  rank: number;
  userId: string;
  /** Nickname, else username, as of the player's last submission. */
  name: string;
  score: number;
  subscore: number;
  metadata: Record<string, unknown> | null;
  updatedAt: string;
}

export interface LeaderboardPeriod {
  seq: number;
  startsAt: string;
  endsAt: string | null;
}

export interface LeaderboardPage {
  records: LeaderboardRecord[];
  /** Pass as `cursor` for the next page; null on the last. */
  next: string | null;
  period: LeaderboardPeriod | null;
}

/** `previous`: the period before the current one (the final ranking of the last reset). */
export type PeriodChoice = "current" | "previous";

export class Leaderboard {
  constructor(
    private readonly request: AuthedRequest,
    readonly boardId: string,
  ) {}

  private path(suffix: string, query: Record<string, string | number | undefined> = {}): string {
    // Mini-game runtimes have no URLSearchParams.
    const text = Object.entries(query)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`)
      .join("&");
    return `/api/leaderboards/${encodeURIComponent(this.boardId)}${suffix}${text ? `?${text}` : ""}`;
  }

  /** The top of the board, `limit` (1–100) at a time; pass the page's `next` for the following page. */
  top(options: { limit?: number; cursor?: string; period?: PeriodChoice } = {}): Promise<LeaderboardPage> {
    return this.request<LeaderboardPage>("GET", this.path("/records", options));
  }

  /** The records of the given players (e.g. the game's friends), by rank; players without one are left out. */
  async records(userIds: readonly string[], options: { period?: PeriodChoice } = {}): Promise<LeaderboardRecord[]> {
    return (await this.request<LeaderboardPage>("GET", this.path("/records", { userIds: userIds.join(","), ...options }))).records;
  }

  /** The player's neighbours, the player in the middle. Rejects with `no_record` when the player has none. */
  async aroundMe(options: { limit?: number; period?: PeriodChoice } = {}): Promise<LeaderboardRecord[]> {
    return (await this.request<{ records: LeaderboardRecord[] }>("GET", this.path("/records/around-me", options))).records;
  }

  /** The player's rank and score. Rejects with `no_record` when the player has none in the period. */
  me(options: { period?: PeriodChoice } = {}): Promise<LeaderboardRecord & { period: LeaderboardPeriod | null }> {
    return this.request("GET", this.path("/me", options));
  }

  /**
   * Submits a score, where the board allows client scores (else `client_submit_disabled`); answers
   * the player's record after it (the board's operator decides what is kept).
   */
  submit(score: number, options: { subscore?: number; metadata?: Record<string, unknown> } = {}): Promise<LeaderboardRecord> {
    return this.request("POST", this.path("/scores"), { score, ...options });
  }

  /** Joins a tournament's current period (idempotent). */
  join(): Promise<{ joined: true; period: LeaderboardPeriod | null }> {
    return this.request("POST", this.path("/join"), {});
  }
}
