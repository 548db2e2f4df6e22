/**
 * Customer-service conversations (docs/growth.md#customer-service-messages): players' messages the
 * platforms push are kept per player (a repeated push of one message lands once: the store's key),
 * and an operator's reply goes out through the platform the player wrote from, then is kept beside
 * them. Douyin's review requires customer service of in-app-purchase games; WeChat's and Douyin's
 * pushes are read (wechat-support.ts, douyin-support.ts).
 */
import { AppError } from "../../core/errors";
import type { SupportConversation, SupportMessage, SupportMessageKind, SupportMessageStore } from "../../core/ports/support-messages";
import type { Logger } from "../../logging/logger";

export interface IncomingMessage {
  openid: string;
  messageId: string;
  kind: SupportMessageKind;
  text: string;
  detail: Record<string, string>;
  sentAtSec: number;
}

export interface SupportDeskDeps {
  store: SupportMessageStore;
  /** Our player behind the platform's openid on the app, or undefined. */
  userIdFor(platform: string, app: string, openid: string): Promise<string | undefined>;
  /** The player's openid on the platform and app ("" without a login there). */
  openidOf(platform: string, app: string, userId: string): Promise<string>;
  /**
   * Sends the text through the platform's customer-service API; throws the platform's refusal as an
   * AppError. `reply` names our message id and the player's last message's fields (Douyin's conversation).
   */
  send(platform: string, app: string, openid: string, text: string, reply: { messageId: string; to: Record<string, string> }): Promise<void>;
  logger: Logger;
  now?: () => number;
}

/** How many of a player's newest messages the console shows. */
export const CONVERSATION_LIMIT = 100;
export const REPLY_ID = /^[A-Za-z0-9_-]{1,64}$/;

export class SupportDesk {
  private readonly now: () => number;

  constructor(private readonly deps: SupportDeskDeps) {
    this.now = deps.now ?? Date.now;
  }

  /**
   * Keeps a player's message. A message from an openid no player of the app has is answered as
   * handled and not kept: it cannot be shown on anybody's page (the player never signed in here).
   */
  async received(platform: string, app: string, message: IncomingMessage): Promise<{ recorded: boolean; reason?: "unknown_player" | "repeated" }> {
    const userId = await this.deps.userIdFor(platform, app, message.openid);
    if (!userId) {
      this.deps.logger.warn({ event: "support_message_unknown_player", platform, app }, "a customer-service message came from a player unknown here; not kept");
      return { recorded: false, reason: "unknown_player" };
    }
    const { created } = await this.deps.store.record({
      appId: app,
      userId,
      platform,
      messageId: message.messageId,
      direction: "in",
      kind: message.kind,
      text: message.text,
      detail: message.detail,
      operator: null,
      at: new Date(message.sentAtSec * 1000).toISOString(),
    });
    return created ? { recorded: true } : { recorded: false, reason: "repeated" };
  }

  conversations(app: string, limit = 50): Promise<SupportConversation[]> {
    return this.deps.store.conversations(app, limit);
  }

  conversation(app: string, userId: string): Promise<SupportMessage[]> {
    return this.deps.store.conversation(app, userId, CONVERSATION_LIMIT);
  }

  /**
   * Sends the operator's text to the player through the platform they last wrote from, then keeps it.
   * A repeat of a reply already kept (same replyId: a double submit, a retry after a lost answer)
   * sends nothing and answers the kept one.
   */
  async reply(app: string, userId: string, input: { text: string; replyId: string; operator: string }): Promise<{ message: SupportMessage; sent: boolean }> {
    const messages = await this.conversation(app, userId);
    const messageId = `reply-${input.replyId}`;
    const kept = messages.find((m) => m.direction === "out" && m.messageId === messageId);
    if (kept) return { message: kept, sent: false };
    const lastIn = [...messages].reverse().find((m) => m.direction === "in");
    if (!lastIn) throw new AppError("support_conversation_not_found");
    const openid = await this.deps.openidOf(lastIn.platform, app, userId);
    if (!openid) throw new AppError("growth_unsupported", { data: { reason: `no_${lastIn.platform}_login` } });
    await this.deps.send(lastIn.platform, app, openid, input.text, { messageId, to: lastIn.detail });
    const message: SupportMessage = {
      appId: app,
      userId,
      platform: lastIn.platform,
      messageId,
      direction: "out",
      kind: "text",
      text: input.text,
      detail: {},
      operator: input.operator,
      at: new Date(this.now()).toISOString(),
    };
    await this.deps.store.record(message);
    return { message, sent: true };
  }

  /** The player's messages of every app (the export). */
  recordsOf(userId: string): Promise<SupportMessage[]> {
    return this.deps.store.listByUser(userId);
  }

  eraseUser(userId: string): Promise<number> {
    return this.deps.store.eraseUser(userId);
  }

  close(): Promise<void> {
    return this.deps.store.close();
  }
}
