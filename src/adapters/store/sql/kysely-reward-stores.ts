/**
 * The ad-view and mail stores over Kysely, for SQLite and PostgreSQL. Every decision is an insert
 * that a unique key decides (ON CONFLICT DO NOTHING; PostgreSQL waits for a concurrent inserter of
 * the same key, then yields nothing), so exactly one of any number of concurrent callers wins.
 */
import type { ColumnType, Kysely, Selectable } from "kysely";
import type { AdView, AdViewStore, NewAdView } from "../../../core/ports/ad-views";
import type { Mail, MailClaim, MailStore } from "../../../core/ports/mail-store";
import { migrateRewardTables, type RewardDialect } from "./reward-schema";

type Timestamp = ColumnType<Date | string, string, string>;

interface AdViewsTable {
  app_id: string;
  transaction_id: string;
  user_id: string;
  ad_unit_id: string;
  day: string;
  slot: number | null;
  watch_id: string | null;
  created_at: Timestamp;
}
interface MailTable {
  mail_id: string;
  app_id: string;
  user_id: string | null;
  title: string;
  body: string;
  attachments: string;
  sender: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}
interface MailClaimsTable {
  app_id: string;
  mail_id: string;
  user_id: string;
  claimed_at: Timestamp;
}
export interface RewardDatabase {
  ad_views: AdViewsTable;
  mail: MailTable;
  mail_claims: MailClaimsTable;
}

const iso = (value: Date | string): string => (value instanceof Date ? value.toISOString() : value);

function toView(row: Selectable<AdViewsTable>): AdView {
  return {
    appId: row.app_id,
    transactionId: row.transaction_id,
    userId: row.user_id,
    adUnitId: row.ad_unit_id,
    day: row.day,
    slot: row.slot === null ? null : Number(row.slot),
    watchId: row.watch_id,
    createdAt: iso(row.created_at),
  };
}

function toMail(row: Selectable<MailTable>): Mail {
  return {
    mailId: row.mail_id,
    appId: row.app_id,
    userId: row.user_id,
    title: row.title,
    body: row.body,
    attachments: JSON.parse(row.attachments) as Mail["attachments"],
    sender: row.sender,
    createdAt: iso(row.created_at),
    expiresAt: iso(row.expires_at),
  };
}

export class KyselyRewardStores implements AdViewStore, MailStore {
  constructor(
    private readonly db: Kysely<RewardDatabase>,
    private readonly dialect: RewardDialect,
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {}

  migrate(): Promise<void> {
    return migrateRewardTables(this.db as Kysely<any>, this.dialect);
  }

  async record(view: NewAdView, cap: number): Promise<{ view: AdView; created: boolean }> {
    const existing = await this.findView(view.appId, view.transactionId);
    if (existing) return { view: existing, created: false };
    // Slots 1..cap, then past the cap (NULL, never a conflict on the slot key).
    for (const slot of [...Array.from({ length: cap }, (_, i) => i + 1), null]) {
      const row = await this.db
        .insertInto("ad_views")
        .values({
          app_id: view.appId,
          transaction_id: view.transactionId,
          user_id: view.userId,
          ad_unit_id: view.adUnitId,
          day: view.day,
          slot,
          watch_id: view.watchId,
          created_at: view.createdAt,
        })
        .onConflict((oc) => oc.doNothing())
        .returningAll()
        .executeTakeFirst();
      if (row) return { view: toView(row), created: true };
      // Either the slot was taken (try the next) or this transaction was recorded meanwhile.
      const raced = await this.findView(view.appId, view.transactionId);
      if (raced) return { view: raced, created: false };
    }
    throw new Error("an ad view past the cap could not be recorded");
  }

  private async findView(appId: string, transactionId: string): Promise<AdView | undefined> {
    const row = await this.db.selectFrom("ad_views").selectAll().where("app_id", "=", appId).where("transaction_id", "=", transactionId).executeTakeFirst();
    return row ? toView(row) : undefined;
  }

  async findByWatch(appId: string, userId: string, watchId: string): Promise<AdView | undefined> {
    const row = await this.db
      .selectFrom("ad_views")
      .selectAll()
      .where("app_id", "=", appId)
      .where("user_id", "=", userId)
      .where("watch_id", "=", watchId)
      .orderBy("created_at", "asc")
      .executeTakeFirst();
    return row ? toView(row) : undefined;
  }

  async listForUser(appId: string, userId: string): Promise<AdView[]> {
    const rows = await this.db.selectFrom("ad_views").selectAll().where("app_id", "=", appId).where("user_id", "=", userId).orderBy("created_at", "desc").execute();
    return rows.map(toView);
  }

  async send(mail: Mail): Promise<{ mail: Mail; created: boolean }> {
    const row = await this.db
      .insertInto("mail")
      .values({
        mail_id: mail.mailId,
        app_id: mail.appId,
        user_id: mail.userId,
        title: mail.title,
        body: mail.body,
        attachments: JSON.stringify(mail.attachments),
        sender: mail.sender,
        created_at: mail.createdAt,
        expires_at: mail.expiresAt,
      })
      .onConflict((oc) => oc.doNothing())
      .returningAll()
      .executeTakeFirst();
    if (row) return { mail: toMail(row), created: true };
    const existing = await this.db.selectFrom("mail").selectAll().where("mail_id", "=", mail.mailId).executeTakeFirstOrThrow();
    return { mail: toMail(existing), created: false };
  }

  async get(appId: string, mailId: string): Promise<Mail | undefined> {
    const row = await this.db.selectFrom("mail").selectAll().where("mail_id", "=", mailId).where("app_id", "=", appId).executeTakeFirst();
    return row ? toMail(row) : undefined;
  }

  async listFor(appId: string, userId: string, now: string, limit: number): Promise<Mail[]> {
    const rows = await this.db
      .selectFrom("mail")
      .selectAll()
      .where("app_id", "=", appId)
      .where((eb) => eb.or([eb("user_id", "=", userId), eb("user_id", "is", null)]))
      .where("expires_at", ">", now)
      .orderBy("created_at", "desc")
      .orderBy("mail_id", "desc")
      .limit(limit)
      .execute();
    return rows.map(toMail);
  }

  async markClaimed(claim: MailClaim): Promise<MailClaim> {
    await this.db
      .insertInto("mail_claims")
      .values({ app_id: claim.appId, mail_id: claim.mailId, user_id: claim.userId, claimed_at: claim.claimedAt })
      .onConflict((oc) => oc.doNothing())
      .execute();
    const [kept] = await this.claimsOf(claim.appId, claim.userId, [claim.mailId]);
    return kept;
  }

  async claimsOf(appId: string, userId: string, mailIds: string[]): Promise<MailClaim[]> {
    if (mailIds.length === 0) return [];
    const rows = await this.db.selectFrom("mail_claims").selectAll().where("app_id", "=", appId).where("user_id", "=", userId).where("mail_id", "in", mailIds).execute();
    return rows.map((r) => ({ appId: r.app_id, mailId: r.mail_id, userId: r.user_id, claimedAt: iso(r.claimed_at) }));
  }

  async recordsOf(userId: string): Promise<{ mail: Mail[]; claims: MailClaim[]; adViews: AdView[] }> {
    const mail = await this.db.selectFrom("mail").selectAll().where("user_id", "=", userId).orderBy("created_at", "desc").execute();
    const claims = await this.db.selectFrom("mail_claims").selectAll().where("user_id", "=", userId).execute();
    const views = await this.db.selectFrom("ad_views").selectAll().where("user_id", "=", userId).orderBy("created_at", "desc").execute();
    return {
      mail: mail.map(toMail),
      claims: claims.map((r) => ({ appId: r.app_id, mailId: r.mail_id, userId: r.user_id, claimedAt: iso(r.claimed_at) })),
      adViews: views.map(toView),
    };
  }

  async eraseUser(userId: string): Promise<void> {
    await this.db.deleteFrom("mail").where("user_id", "=", userId).execute();
    await this.db.deleteFrom("mail_claims").where("user_id", "=", userId).execute();
    await this.db.deleteFrom("ad_views").where("user_id", "=", userId).execute();
  }

  close(): Promise<void> {
    return this.onClose();
  }
}
