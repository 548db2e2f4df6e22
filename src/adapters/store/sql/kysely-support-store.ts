/**
 * The SupportMessageStore over Kysely (SQLite and PostgreSQL): a message is an insert the primary
 * key (app, platform, message id) decides, so a platform's repeated push is one row.
 */
import type { ColumnType, Kysely } from "kysely";
import { summarizeConversation, type SupportConversation, type SupportMessage, type SupportMessageKind, type SupportMessageStore } from "../../../core/ports/support-messages";
import { migrateToLatest, type SqlDialect } from "./migrations";

type Timestamp = ColumnType<Date | string, string, string>;

interface SupportRow {
  app_id: string;
  platform: string;
  message_id: string;
  user_id: string;
  direction: string;
  kind: string;
  text: string;
  detail: string;
  operator: string | null;
  at: Timestamp;
}

export interface SupportDatabase {
  support_messages: SupportRow;
}

const iso = (value: Date | string) => (value instanceof Date ? value.toISOString() : new Date(value).toISOString());

function messageOf(row: { [K in keyof SupportRow]: K extends "at" ? Date | string : SupportRow[K] }): SupportMessage {
  return {
    appId: row.app_id,
    userId: row.user_id,
    platform: row.platform,
    messageId: row.message_id,
    direction: row.direction === "out" ? "out" : "in",
    kind: row.kind as SupportMessageKind,
    text: row.text,
    detail: JSON.parse(row.detail) as Record<string, string>,
    operator: row.operator,
    at: iso(row.at),
  };
}

export class KyselySupportStore implements SupportMessageStore {
  constructor(
    private readonly db: Kysely<SupportDatabase>,
    private readonly dialect: SqlDialect,
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {}

  migrate(): Promise<void> {
    return migrateToLatest(this.db as Kysely<any>, this.dialect);
  }

  async record(m: SupportMessage): Promise<{ created: boolean }> {
    const result = await this.db
      .insertInto("support_messages")
      .values({ app_id: m.appId, platform: m.platform, message_id: m.messageId, user_id: m.userId, direction: m.direction, kind: m.kind, text: m.text, detail: JSON.stringify(m.detail), operator: m.operator, at: m.at })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return { created: Number(result.numInsertedOrUpdatedRows ?? 0) === 1 };
  }

  async conversation(appId: string, userId: string, limit: number): Promise<SupportMessage[]> {
    const rows = await this.db.selectFrom("support_messages").selectAll().where("app_id", "=", appId).where("user_id", "=", userId).orderBy("at", "desc").orderBy("message_id", "desc").limit(limit).execute();
    return rows.map(messageOf).reverse();
  }

  async conversations(appId: string, limit: number): Promise<SupportConversation[]> {
    const latest = await this.db
      .selectFrom("support_messages")
      .select(["user_id", (eb) => eb.fn.max("at").as("last_at")])
      .where("app_id", "=", appId)
      .groupBy("user_id")
      .orderBy("last_at", "desc")
      .limit(limit)
      .execute();
    const out: SupportConversation[] = [];
    for (const row of latest) {
      const summary = summarizeConversation(await this.conversation(appId, row.user_id, 50));
      if (summary) out.push(summary);
    }
    return out;
  }

  async listByUser(userId: string): Promise<SupportMessage[]> {
    const rows = await this.db.selectFrom("support_messages").selectAll().where("user_id", "=", userId).orderBy("at").orderBy("message_id").execute();
    return rows.map(messageOf);
  }

  async eraseUser(userId: string): Promise<number> {
    const result = await this.db.deleteFrom("support_messages").where("user_id", "=", userId).executeTakeFirst();
    return Number(result.numDeletedRows ?? 0);
  }

  close(): Promise<void> {
    return this.onClose();
  }
}
