import { Encoder, MapSchema, Schema, type } from "@colyseus/schema";
import { KeyedTurns } from "../src/core/keyed-turns";
import { FORBIDDEN_TEXT_MESSAGE, isCleanText } from "../src/core/text-rules";
import { AuthenticatedRoom, playerOf, type PlayerClient } from "./AuthenticatedRoom";
import { mayChat } from "./chat-mute";
import { roomServices } from "./room-services";

// A full lobby (500 players × ~80 bytes) outgrows the 8 KiB default encode buffer.
Encoder.BUFFER_SIZE = Math.max(Encoder.BUFFER_SIZE, 64 * 1024);

export class Player extends Schema {
  @type("string") userId = "";
  /** Nickname, or username when the player has none. */
  @type("string") name = "";
  /** Epoch milliseconds. */
  @type("number") joinedAt = 0;
}

export class LobbyState extends Schema {
  @type({ map: Player }) players = new MapSchema<Player>();
}

export const CHAT_MAX_LENGTH = 200;
/** Chat flood control: at most this many messages per window per client. */
export const CHAT_BURST = 5;
export const CHAT_WINDOW_MS = 5_000;

export interface ChatBroadcast {
  userId: string;
  name: string;
  text: string;
  at: number;
}

/**
 * A lobby that shows the identity flowing through: who is present, and chat whose sender is taken
 * from `client.auth`, never from the message.
 */
export class LobbyRoom extends AuthenticatedRoom<LobbyState> {
  override maxClients = 500;
  private readonly recentChats = new Map<string, number[]>();
  /** A player's chat lines are shown in the order sent, though each waits on the mute and content checks. */
  private readonly chatTurns = new KeyedTurns();

  override onCreate(options: unknown): void {
    super.onCreate(options);
    this.maxClients = roomServices().lobbyMaxClients;
    this.setState(new LobbyState());
    this.onMessage("chat", (client: PlayerClient, message: unknown) =>
      this.chatTurns.run(client.sessionId, () => this.handleChat(client, message)).catch((err: unknown) => roomServices().logger.error({ err }, "lobby chat failed")),
    );
    this.onMessage("*", (client: PlayerClient, type: string | number) => {
      client.send("error", { code: "unknown_message", type: String(type).slice(0, 32) });
    });
  }

  override onJoin(client: PlayerClient): void {
    const auth = playerOf(client);
    const player = new Player();
    player.userId = auth.userId;
    player.name = auth.nickname || auth.username;
    player.joinedAt = Date.now();
    this.state.players.set(client.sessionId, player);
  }

  protected override onPlayerLeave(client: PlayerClient): void {
    this.state.players.delete(client.sessionId);
    this.recentChats.delete(client.sessionId);
  }

  private async handleChat(client: PlayerClient, message: unknown): Promise<void> {
    const text = typeof message === "object" && message !== null ? (message as { text?: unknown }).text : undefined;
    if (typeof text !== "string" || text.trim().length === 0 || text.length > CHAT_MAX_LENGTH) {
      client.send("error", { code: "invalid_message", message: `chat text must be 1–${CHAT_MAX_LENGTH} characters` });
      return;
    }
    if (!isCleanText(text.trim())) {
      client.send("error", { code: "invalid_message", message: `chat text ${FORBIDDEN_TEXT_MESSAGE}` });
      return;
    }
    // A muted player's text reaches no one (and costs no content check).
    if (!(await mayChat(client))) return;
    if (this.isFlooding(client.sessionId)) {
      client.send("error", { code: "rate_limited", message: "too many chat messages; slow down" });
      return;
    }
    if (!(await this.moderate(client, text.trim()))) return;
    const auth = playerOf(client);
    const player = this.state.players.get(client.sessionId);
    const broadcast: ChatBroadcast = {
      userId: auth.userId,
      name: player?.name ?? auth.username,
      text: text.trim(),
      at: Date.now(),
    };
    this.broadcast("chat", broadcast);
  }

  private isFlooding(sessionId: string): boolean {
    const now = Date.now();
    const recent = (this.recentChats.get(sessionId) ?? []).filter((t) => now - t < CHAT_WINDOW_MS);
    const flooding = recent.length >= CHAT_BURST;
    if (!flooding) recent.push(now);
    this.recentChats.set(sessionId, recent);
    return flooding;
  }
}
