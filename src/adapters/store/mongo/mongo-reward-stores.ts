/**
 * The ad-view and mail stores on MongoDB, race-free on FerretDB too: every decision is an insert
 * into `_id` (the only race-free write FerretDB has; ../shared ferretdb notes), nothing is updated.
 *
 *   ad_slots    `_id` = "<app>:<user>:<ad unit>:<day>:<n>" → the transaction holding daily slot n
 *   ad_views    `_id` = "<app>:<transaction>" → the view, written once its slot is known
 *   ad_watches  `_id` = "<app>:<user>:<watch id>" → the transaction (watchAd's lookup)
 *   mail        `_id` = the mail id
 *   mail_claims `_id` = "<app>:<mail>:<user>"
 *
 * Callers recording the same transaction scan the slots in the same order and stop at the first
 * slot they win or find held by their transaction, so they all end on one slot; a crash between
 * the slot and the view is finished by the next replay, which finds the slot held by its transaction.
 *
 * Slots and watch keys also carry `userId`, so an erase finds them without their view: a slot is
 * written before its view, and an erase that reached them through the views missed those whose
 * view landed after its lookup (or never: a crash in between) — left for good once another erase
 * had deleted that view (issue 48 item 6 on MongoDB: ad_watches and ad_slots of an erased player).
 */
import type { Collection, Connection } from "mongoose";
import type { AdView, AdViewStore, NewAdView } from "../../../core/ports/ad-views";
import type { Mail, MailClaim, MailStore } from "../../../core/ports/mail-store";
import { isDuplicateKey } from "./claims";

interface SlotDoc {
  _id: string;
  tx: string;
  /** Absent on slots written before the erase needed it (reached through their views). */
  userId?: string;
  at: Date;
}
interface ViewDoc extends Omit<AdView, "createdAt"> {
  _id: string;
  createdAt: Date;
}
interface WatchDoc {
  _id: string;
  tx: string;
  userId?: string;
}
interface MailDoc extends Omit<Mail, "mailId" | "createdAt" | "expiresAt"> {
  _id: string;
  createdAt: Date;
  expiresAt: Date;
}
interface ClaimDoc {
  _id: string;
  appId: string;
  mailId: string;
  userId: string;
  claimedAt: Date;
}

const part = (s: string) => encodeURIComponent(s);

async function insertOnce<T extends { _id: string }>(collection: Collection<T>, doc: T): Promise<boolean> {
  try {
    await collection.insertOne(doc as Parameters<Collection<T>["insertOne"]>[0]);
    return true;
  } catch (err) {
    if (isDuplicateKey(err)) return false;
    throw err;
  }
}

function toView(doc: ViewDoc): AdView {
  return {
    appId: doc.appId,
    transactionId: doc.transactionId,
    userId: doc.userId,
    adUnitId: doc.adUnitId,
    day: doc.day,
    slot: doc.slot,
    watchId: doc.watchId,
    createdAt: doc.createdAt.toISOString(),
  };
}

function toMail(doc: MailDoc): Mail {
  const { _id, createdAt, expiresAt, ...rest } = doc;
  return { ...rest, mailId: _id, createdAt: createdAt.toISOString(), expiresAt: expiresAt.toISOString() };
}

export class MongoRewardStores implements AdViewStore, MailStore {
  private readonly slots: Collection<SlotDoc>;
  private readonly views: Collection<ViewDoc>;
  private readonly watches: Collection<WatchDoc>;
  private readonly mail: Collection<MailDoc>;
  private readonly claims: Collection<ClaimDoc>;

  constructor(
    connection: Connection,
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {
    this.slots = connection.collection<SlotDoc>("ad_slots");
    this.views = connection.collection<ViewDoc>("ad_views");
    this.watches = connection.collection<WatchDoc>("ad_watches");
    this.mail = connection.collection<MailDoc>("mail");
    this.claims = connection.collection<ClaimDoc>("mail_claims");
  }

  async migrate(): Promise<void> {
    // Plain indexes for the lists; uniqueness is always `_id`.
    await this.mail.createIndex({ appId: 1, userId: 1, expiresAt: 1 });
    await this.views.createIndex({ appId: 1, userId: 1, createdAt: -1 });
    await this.slots.createIndex({ userId: 1 });
    await this.watches.createIndex({ userId: 1 });
  }

  async record(view: NewAdView, cap: number): Promise<{ view: AdView; created: boolean }> {
    const viewKey = `${part(view.appId)}:${part(view.transactionId)}`;
    const existing = await this.views.findOne({ _id: viewKey });
    if (existing) return { view: toView(existing), created: false };
    const slot = await this.takeSlot(view, cap);
    const doc: ViewDoc = { _id: viewKey, ...view, slot, createdAt: new Date(view.createdAt) };
    const created = await insertOnce(this.views, doc);
    const kept = created ? doc : await this.views.findOne({ _id: viewKey });
    if (!kept) throw new Error("an ad view vanished after its insert collided");
    if (view.watchId) {
      await insertOnce(this.watches, { _id: `${part(view.appId)}:${part(view.userId)}:${part(view.watchId)}`, tx: view.transactionId, userId: view.userId });
    }
    return { view: toView(kept), created };
  }

  /** The first slot this transaction wins or already holds; null when every slot up to the cap is another's. */
  private async takeSlot(view: NewAdView, cap: number): Promise<number | null> {
    const base = `${part(view.appId)}:${part(view.userId)}:${part(view.adUnitId)}:${view.day}`;
    for (let n = 1; n <= cap; n++) {
      const id = `${base}:${n}`;
      let holder = await this.slots.findOne({ _id: id });
      if (!holder) {
        if (await insertOnce(this.slots, { _id: id, tx: view.transactionId, userId: view.userId, at: new Date() })) return n;
        holder = await this.slots.findOne({ _id: id });
      }
      if (holder?.tx === view.transactionId) return n;
    }
    return null;
  }

  async findByWatch(appId: string, userId: string, watchId: string): Promise<AdView | undefined> {
    const watch = await this.watches.findOne({ _id: `${part(appId)}:${part(userId)}:${part(watchId)}` });
    if (!watch) return undefined;
    const doc = await this.views.findOne({ _id: `${part(appId)}:${part(watch.tx)}` });
    return doc ? toView(doc) : undefined;
  }

  async listForUser(appId: string, userId: string): Promise<AdView[]> {
    const docs = await this.views.find({ appId, userId }).sort({ createdAt: -1 }).toArray();
    return docs.map(toView);
  }

  async send(mail: Mail): Promise<{ mail: Mail; created: boolean }> {
    const { mailId, createdAt, expiresAt, ...rest } = mail;
    const doc: MailDoc = { _id: mailId, ...rest, createdAt: new Date(createdAt), expiresAt: new Date(expiresAt) };
    if (await insertOnce(this.mail, doc)) return { mail: toMail(doc), created: true };
    const existing = await this.mail.findOne({ _id: mailId });
    if (!existing) throw new Error("a mail vanished after its insert collided");
    return { mail: toMail(existing), created: false };
  }

  async get(appId: string, mailId: string): Promise<Mail | undefined> {
    const doc = await this.mail.findOne({ _id: mailId });
    return doc && doc.appId === appId ? toMail(doc) : undefined;
  }

  async listFor(appId: string, userId: string, now: string, limit: number): Promise<Mail[]> {
    const docs = await this.mail
      .find({ appId, userId: { $in: [userId, null] }, expiresAt: { $gt: new Date(now) } })
      .sort({ createdAt: -1, _id: -1 })
      .limit(limit)
      .toArray();
    return docs.map(toMail);
  }

  async markClaimed(claim: MailClaim): Promise<MailClaim> {
    const id = `${part(claim.appId)}:${part(claim.mailId)}:${part(claim.userId)}`;
    await insertOnce(this.claims, { _id: id, appId: claim.appId, mailId: claim.mailId, userId: claim.userId, claimedAt: new Date(claim.claimedAt) });
    const kept = await this.claims.findOne({ _id: id });
    return kept ? { appId: kept.appId, mailId: kept.mailId, userId: kept.userId, claimedAt: kept.claimedAt.toISOString() } : claim;
  }

  async claimsOf(appId: string, userId: string, mailIds: string[]): Promise<MailClaim[]> {
    if (mailIds.length === 0) return [];
    const ids = mailIds.map((m) => `${part(appId)}:${part(m)}:${part(userId)}`);
    const docs = await this.claims.find({ _id: { $in: ids } }).toArray();
    return docs.map((d) => ({ appId: d.appId, mailId: d.mailId, userId: d.userId, claimedAt: d.claimedAt.toISOString() }));
  }

  async recordsOf(userId: string): Promise<{ mail: Mail[]; claims: MailClaim[]; adViews: AdView[] }> {
    const mail = await this.mail.find({ userId }).sort({ createdAt: -1 }).toArray();
    const claims = await this.claims.find({ userId }).toArray();
    const views = await this.views.find({ userId }).sort({ createdAt: -1 }).toArray();
    return {
      mail: mail.map(toMail),
      claims: claims.map((d) => ({ appId: d.appId, mailId: d.mailId, userId: d.userId, claimedAt: d.claimedAt.toISOString() })),
      adViews: views.map(toView),
    };
  }

  /**
   * By `userId` in every collection, so a document written while this runs is either deleted or
   * left to its writer's own fence check (which runs after all its inserts). Slots and watch keys
   * written before they carried `userId` are reached through their views, as before.
   */
  async eraseUser(userId: string): Promise<void> {
    await this.slots.deleteMany({ userId });
    await this.watches.deleteMany({ userId });
    const views = await this.views.find({ userId }).toArray();
    for (const v of views) {
      const base = `${part(v.appId)}:${part(userId)}:`;
      await this.slots.deleteMany({ _id: { $in: Array.from({ length: v.slot ?? 0 }, (_, i) => `${base}${part(v.adUnitId)}:${v.day}:${i + 1}`) } });
      if (v.watchId) await this.watches.deleteOne({ _id: `${base}${part(v.watchId)}` });
    }
    await this.views.deleteMany({ userId });
    await this.mail.deleteMany({ userId });
    await this.claims.deleteMany({ userId });
  }

  close(): Promise<void> {
    return this.onClose();
  }
}
