import { AuthenticatedRoom, playerOf, type PlayerClient } from "./AuthenticatedRoom";
import { roomServices } from "./room-services";

/** The storage key the example's friend ranking reads (the open-data context sorts friends by it). */
export const MATCH_SCORE_KEY = "score";
/** The leaderboard the example submits each player's points to, where the player's app has it. */
export const MATCH_BOARD = "highscores";

export interface MatchResults {
  players: Array<{ userId: string; points: number; recorded: boolean; code?: string }>;
}

interface Entry {
  userId: string;
  app: string;
  points: number;
}

/**
 * A tiny match showing scores a friend sees coming from the server: every `hit` scores one point,
 * counted here (no message carries a score, so a client cannot forge one), and `finish` ends the match
 * for everyone. Each player's points are then written to their own platform's storage under
 * `score` as a ranking value, signed with their kept session key, and the room broadcasts `results`:
 * who was recorded and, for anyone who was not, why (e.g. `session_key_rejected`: log in again). A
 * player who left before the end keeps their result. A real game would keep its best score instead
 * of the last one; the write is the same.
 */
export class MatchRoom extends AuthenticatedRoom {
  override maxClients = 8;
  private readonly entries = new Map<string, Entry>();
  private finished = false;

  override onCreate(options: unknown): void {
    super.onCreate(options);
    this.onMessage("hit", (client: PlayerClient) => {
      const entry = this.entries.get(playerOf(client).userId);
      if (!entry || this.finished) return;
      entry.points += 1;
      client.send("points", { points: entry.points });
    });
    this.onMessage("finish", () => void this.finish());
  }

  override onJoin(client: PlayerClient): void {
    const { userId, app } = playerOf(client);
    // A player who joins again (a replaced seat) keeps the points scored so far.
    if (!this.entries.has(userId)) this.entries.set(userId, { userId, app, points: 0 });
  }

  private async finish(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.lock();
    const entries = [...this.entries.values()];
    const services = roomServices();
    const [outcomes] = await Promise.all([
      services.playerStorage.recordMatchResults(entries.map(({ userId, app, points }) => ({ userId, app, scores: { [MATCH_SCORE_KEY]: points } }))),
      Promise.all(entries.map((entry) => this.submitToBoard(entry))),
    ]);
    const results: MatchResults = {
      players: entries.map(({ userId, points }, i) => {
        const outcome = outcomes[i];
        return outcome.recorded ? { userId, points, recorded: true } : { userId, points, recorded: false, code: outcome.code };
      }),
    };
    this.broadcast("results", results);
  }

  /**
   * The server's own result on the app's `highscores` board, where the app has one: trusted code, so
   * no client ever sends a score. The results message is sent after it, so a client that reads the
   * board on `results` sees its points there.
   */
  private async submitToBoard({ userId, app, points }: Entry): Promise<void> {
    const { leaderboards, logger } = roomServices();
    if (!leaderboards.boards(app).some((b) => b.id === MATCH_BOARD)) return;
    try {
      await leaderboards.submit(app, userId, MATCH_BOARD, points, { metadata: { room: this.roomId } });
    } catch (err) {
      logger.warn({ err, userId, app, board: MATCH_BOARD }, "match result not submitted to the leaderboard");
    }
  }
}
