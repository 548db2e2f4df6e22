/**
 * The SupportMessageStore on MongoDB (FerretDB too): one insert-only document per message,
 * `_id` = "<app>:<platform>:<messageId>", so a repeated push meets the duplicate key and lands once.
 */
import type { Collection, Connection } from "mongoose";
import { summarizeConversation, type SupportConversation, type SupportMessage, type SupportMessageStore } from "../../../core/ports/support-messages";
import { isDuplicateKey } from "./unknown-outcome";

interface SupportDoc extends SupportMessage {
  _id: string;
}

/** How many of an app's newest messages the conversation list reads to find its players. */
const CONVERSATION_SCAN = 2_000;

const key = (...parts: string[]) => parts.map(encodeURIComponent).join(":");
const messageOf = ({ _id: _key, ...message }: SupportDoc): SupportMessage => message;

export class MongoSupportStore implements SupportMessageStore {
  private readonly messages: Collection<SupportDoc>;

  constructor(
    connection: Connection,
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {
    this.messages = connection.collection<SupportDoc>("support_messages");
  }

  async migrate(): Promise<void> {
    await this.messages.createIndex({ appId: 1, userId: 1, at: -1 });
    await this.messages.createIndex({ appId: 1, at: -1 });
    await this.messages.createIndex({ userId: 1 });
  }

  async record(message: SupportMessage): Promise<{ created: boolean }> {
    const doc: SupportDoc = { _id: key(message.appId, message.platform, message.messageId), ...message };
    // An insert whose answer was lost throws: the platform pushes again and meets the duplicate key.
    try {
      await this.messages.insertOne(doc);
      return { created: true };
    } catch (err) {
      if (isDuplicateKey(err)) return { created: false };
      throw err;
    }
  }

  async conversation(appId: string, userId: string, limit: number): Promise<SupportMessage[]> {
    const docs = await this.messages.find({ appId, userId }).sort({ at: -1, messageId: -1 }).limit(limit).toArray();
    return docs.map(messageOf).reverse();
  }

  async conversations(appId: string, limit: number): Promise<SupportConversation[]> {
    // No $group: the newest messages name the active players (FerretDB's aggregation support varies).
    const recent = await this.messages.find({ appId }, { projection: { userId: 1 } }).sort({ at: -1 }).limit(CONVERSATION_SCAN).toArray();
    const users = [...new Set(recent.map((d) => d.userId))].slice(0, limit);
    const out: SupportConversation[] = [];
    for (const userId of users) {
      const summary = summarizeConversation(await this.conversation(appId, userId, 50));
      if (summary) out.push(summary);
    }
    return out;
  }

  async listByUser(userId: string): Promise<SupportMessage[]> {
    const docs = await this.messages.find({ userId }).sort({ at: 1, messageId: 1 }).toArray();
    return docs.map(messageOf);
  }

  async eraseUser(userId: string): Promise<number> {
    const result = await this.messages.deleteMany({ userId });
    return result.deletedCount ?? 0;
  }

  close(): Promise<void> {
    return this.onClose();
  }
}
