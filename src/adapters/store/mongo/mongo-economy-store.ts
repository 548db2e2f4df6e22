/**
 * The EconomyStore on MongoDB, race-free on FerretDB 1.x (whose updates are read-modify-write and
 * whose only race-free write is an insert into `_id`): every record that decides something is
 * inserted, never updated (economy-chain.ts):
 *
 *   economy_claims    `_id` = source key; `seq` is a hint set after the entry exists
 *   economy_entries   `_id` = "<app>:<user>:<seq>": the player's ledger, each entry with the state after it
 *   economy_heads     `_id` = "<app>:<user>": a hint of the ledger's length (lost updates only cost reads);
 *                     `userId` too, so an erase finds a head whose claim another erase already deleted
 *   economy_catalogs  `_id` = "<app>:<version>": the operators' catalog versions
 *   catalog_heads     `_id` = app: a hint of the latest version
 *
 * Reads that decide are point reads by `_id` (FerretDB's SQLite backend pushes no other filter down).
 */
import type { Collection, Connection } from "mongoose";
import type { ApplyResult, CatalogVersionInfo, EconomyChange, EconomyState, EconomyStore, LedgerEntry, StoredCatalog } from "../../../core/ports/economy-store";
import { EconomyChain, playerKey, type ChainRecords, type EconomyCrashHook, type SourceClaim } from "../economy-chain";
import { isDuplicateKey } from "./claims";
import { MongoErasureMarks } from "./erasure-marks";

interface ClaimDoc extends Omit<SourceClaim, "key"> {
  _id: string;
}
interface EntryDoc extends LedgerEntry {
  _id: string;
  sourceKey: string;
}
interface HeadDoc {
  _id: string;
  seq: number;
  /** A player's head (absent on catalog heads and on heads written before erases needed it). */
  userId?: string;
}
interface CatalogDoc {
  _id: string;
  appId: string;
  version: number;
  body: string;
  by: string;
  at: string;
}

const entryId = (appId: string, userId: string, seq: number) => `${playerKey(appId, userId)}:${seq}`;
const catalogId = (appId: string, version: number) => `${encodeURIComponent(appId)}:${version}`;

async function inserted(insert: () => Promise<unknown>): Promise<boolean> {
  try {
    await insert();
    return true;
  } catch (err) {
    if (isDuplicateKey(err)) return false;
    throw err;
  }
}

/** Raises a hint document; concurrent raises may lose one another's write, which only costs reads. */
async function raise(collection: Collection<HeadDoc>, id: string, seq: number, userId?: string): Promise<void> {
  const current = await collection.findOne({ _id: id });
  if (current && current.seq >= seq) return;
  if (current) await collection.updateOne({ _id: id }, { $set: { seq } });
  else await inserted(() => collection.insertOne(userId === undefined ? { _id: id, seq } : { _id: id, seq, userId }));
}

export class MongoEconomyStore implements EconomyStore {
  private readonly claims: Collection<ClaimDoc>;
  private readonly entriesOf: Collection<EntryDoc>;
  private readonly heads: Collection<HeadDoc>;
  private readonly catalogs: Collection<CatalogDoc>;
  private readonly catalogHeads: Collection<HeadDoc>;
  private readonly chain: EconomyChain;
  readonly erasures: MongoErasureMarks;

  constructor(
    connection: Connection,
    private readonly onClose: () => Promise<void> = async () => undefined,
    crashPoint?: EconomyCrashHook,
  ) {
    this.claims = connection.collection<ClaimDoc>("economy_claims");
    this.entriesOf = connection.collection<EntryDoc>("economy_entries");
    this.heads = connection.collection<HeadDoc>("economy_heads");
    this.catalogs = connection.collection<CatalogDoc>("economy_catalogs");
    this.catalogHeads = connection.collection<HeadDoc>("catalog_heads");
    this.erasures = new MongoErasureMarks(connection);
    this.chain = new EconomyChain(this.records(), crashPoint, { marks: this.erasures, erase: (userId) => this.erase(userId) });
  }

  async migrate(): Promise<void> {
    // Plain indexes for export and erase; uniqueness is `_id` alone.
    await this.claims.createIndex({ userId: 1 });
    await this.heads.createIndex({ userId: 1 });
    await this.entriesOf.createIndex({ userId: 1, appId: 1, seq: 1 });
    await this.catalogs.createIndex({ appId: 1, version: -1 });
  }

  apply(change: EconomyChange): Promise<ApplyResult> {
    return this.chain.apply(change);
  }

  findBySource(appId: string, source: string, sourceId: string): Promise<LedgerEntry | null> {
    return this.chain.findBySource(appId, source, sourceId);
  }

  state(appId: string, userId: string): Promise<EconomyState> {
    return this.chain.state(appId, userId);
  }

  async entries(appId: string, userId: string): Promise<LedgerEntry[]> {
    const docs = await this.entriesOf.find({ userId, appId }).toArray();
    return docs.sort((a, b) => a.seq - b.seq).map(toEntry);
  }

  async appsOf(userId: string): Promise<string[]> {
    const docs = await this.claims.find({ userId }).toArray();
    return [...new Set(docs.map((d) => d.appId))].sort();
  }

  /**
   * By `userId` everywhere: a document written meanwhile is deleted here or by its writer's fence
   * check. Reaching heads only through the claims' apps missed a head raised after another erase
   * had deleted its claim; heads older than their `userId` field are still reached that way.
   */
  async erase(userId: string): Promise<void> {
    const apps = await this.appsOf(userId);
    await this.entriesOf.deleteMany({ userId });
    await this.heads.deleteMany({ userId });
    await this.heads.deleteMany({ _id: { $in: apps.map((app) => playerKey(app, userId)) } });
    await this.claims.deleteMany({ userId });
  }

  async saveCatalog(appId: string, expectedVersion: number, body: unknown, by: string, at: string): Promise<StoredCatalog | null> {
    const version = expectedVersion + 1;
    // The body is kept as JSON text: catalog keys are the studio's ids, never safe as document keys.
    const ok = await inserted(() => this.catalogs.insertOne({ _id: catalogId(appId, version), appId, version, body: JSON.stringify(body), by, at }));
    if (!ok) return null;
    await raise(this.catalogHeads, appId, version).catch(() => undefined);
    return { appId, version, body, by, at };
  }

  async latestCatalog(appId: string): Promise<StoredCatalog | null> {
    let version = (await this.catalogHeads.findOne({ _id: appId }))?.seq ?? 0;
    let doc = version > 0 ? await this.catalogs.findOne({ _id: catalogId(appId, version) }) : null;
    for (;;) {
      const next = await this.catalogs.findOne({ _id: catalogId(appId, version + 1) });
      if (!next) break;
      doc = next;
      version += 1;
    }
    return doc ? { appId, version: doc.version, body: JSON.parse(doc.body), by: doc.by, at: doc.at } : null;
  }

  async listCatalogVersions(appId: string, options: { limit: number; before?: number }): Promise<CatalogVersionInfo[]> {
    const filter = options.before === undefined ? { appId } : { appId, version: { $lt: options.before } };
    const docs = await this.catalogs.find(filter, { projection: { body: 0 } }).sort({ version: -1 }).limit(options.limit).toArray();
    return docs.map((doc) => ({ appId, version: doc.version, by: doc.by, at: doc.at }));
  }

  async findCatalog(appId: string, version: number): Promise<StoredCatalog | null> {
    const doc = await this.catalogs.findOne({ _id: catalogId(appId, version) });
    return doc ? { appId, version: doc.version, body: JSON.parse(doc.body), by: doc.by, at: doc.at } : null;
  }

  close(): Promise<void> {
    return this.onClose();
  }

  private records(): ChainRecords {
    const { claims, entriesOf, heads } = this;
    return {
      async readClaim(key) {
        const doc = await claims.findOne({ _id: key });
        if (!doc) return null;
        const { _id, ...rest } = doc;
        return { key: _id, ...rest, change: JSON.parse(rest.change as unknown as string) as EconomyChange };
      },
      insertClaim: (claim) => {
        const { key, ...rest } = claim;
        // The change as JSON text: item and currency ids are the studio's, never safe as document keys.
        return inserted(() => claims.insertOne({ _id: key, ...rest, change: JSON.stringify(claim.change) as unknown as EconomyChange }));
      },
      async markClaim(key, seq) {
        await claims.updateOne({ _id: key }, { $set: { seq } });
      },
      async headHint(appId, userId) {
        return (await heads.findOne({ _id: playerKey(appId, userId) }))?.seq ?? 0;
      },
      raiseHead: (appId, userId, seq) => raise(heads, playerKey(appId, userId), seq, userId),
      async readEntry(appId, userId, seq) {
        const doc = await entriesOf.findOne({ _id: entryId(appId, userId, seq) });
        return doc ? toEntry(doc) : null;
      },
      insertEntry: (entry, sourceKey) =>
        inserted(() => entriesOf.insertOne({ ...encodeEntry(entry), _id: entryId(entry.appId, entry.userId, entry.seq), sourceKey } as EntryDoc)),
    };
  }
}

/** Maps keyed by studio ids are stored as JSON text (no `.` or `$` limits on ids). */
function encodeEntry(entry: LedgerEntry): Record<string, unknown> {
  return { ...entry, currencies: JSON.stringify(entry.currencies), state: JSON.stringify(entry.state) };
}

function toEntry(doc: EntryDoc): LedgerEntry {
  const raw = doc as unknown as Record<string, unknown>;
  return {
    appId: doc.appId,
    userId: doc.userId,
    seq: doc.seq,
    source: doc.source,
    sourceId: doc.sourceId,
    outcome: doc.outcome,
    reason: doc.reason,
    currencies: JSON.parse(raw.currencies as string),
    items: doc.items.map((i) => ({ itemId: i.itemId, count: i.count })),
    purchase: doc.purchase ? { itemId: doc.purchase.itemId, quantity: doc.purchase.quantity } : null,
    note: doc.note,
    ...(doc.liveEvent ? { liveEvent: doc.liveEvent } : {}),
    state: JSON.parse(raw.state as string),
    at: doc.at,
  };
}
