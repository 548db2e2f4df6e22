/**
 * Customer-service conversations (docs/growth.md#customer-service-messages): the messages players
 * send through their platform's customer-service entry and the operators' replies, one conversation
 * per (app, player). Insert-only, keyed (app, platform, messageId): a platform's repeated push of one
 * message (WeChat retries, Douyin's "push more than once") lands once, and a retried reply of an
 * operator (same replyId) is one message.
 */
export const SUPPORT_MESSAGE_KINDS = ["text", "image", "page", "enter"] as const;
export type SupportMessageKind = (typeof SUPPORT_MESSAGE_KINDS)[number];

export interface SupportMessage {
  /** Our app key. */
  appId: string;
  userId: string;
  platform: string;
  /** The platform's message id (`MsgId`), or ours for an operator's reply. */
  messageId: string;
  /** `in`: from the player; `out`: an operator's reply sent through the platform. */
  direction: "in" | "out";
  kind: SupportMessageKind;
  /** The text, an image's URL, a page card's title; "" for entering the conversation. */
  text: string;
  /** Kind-specific fields as the platform gave them (pagePath, mediaId, sessionFrom…). */
  detail: Record<string, string>;
  /** The operator who replied; null for a player's message. */
  operator: string | null;
  /** When the platform says it was sent (ours for a reply), ISO. */
  at: string;
}

export interface SupportConversation {
  userId: string;
  platform: string;
  /** The newest message, either way. */
  last: SupportMessage;
  /** Messages from the player newer than the last reply. */
  waiting: number;
}

export interface SupportMessageStore {
  migrate(): Promise<void>;
  /** Inserts the message unless one with its (appId, platform, messageId) exists; `created` false then. */
  record(message: SupportMessage): Promise<{ created: boolean }>;
  /** The player's newest `limit` messages, oldest first. */
  conversation(appId: string, userId: string, limit: number): Promise<SupportMessage[]>;
  /** One entry per player of the app, the most recently active first, at most `limit`. */
  conversations(appId: string, limit: number): Promise<SupportConversation[]>;
  /** Every message of the player in every app (the export), oldest first. */
  listByUser(userId: string): Promise<SupportMessage[]>;
  /** Forgets the player's messages (erase); answers how many were removed. */
  eraseUser(userId: string): Promise<number>;
  close(): Promise<void>;
}

/** A conversation's entry from its newest messages (oldest first); undefined when there are none. */
export function summarizeConversation(messages: readonly SupportMessage[]): SupportConversation | undefined {
  const last = messages[messages.length - 1];
  if (!last) return undefined;
  let waiting = 0;
  for (let i = messages.length - 1; i >= 0 && messages[i].direction === "in"; i--) if (messages[i].kind !== "enter") waiting++;
  return { userId: last.userId, platform: [...messages].reverse().find((m) => m.direction === "in")?.platform ?? last.platform, last, waiting };
}
