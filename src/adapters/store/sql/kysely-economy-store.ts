/**
 * The EconomyStore over Kysely, for SQLite and PostgreSQL: the same insert-only records as the
 * MongoDB store (economy-chain.ts), each an INSERT … ON CONFLICT DO NOTHING that the primary key
 * decides. The ledger's length is read exactly (max(seq)), so no head hint is kept.
 */
import { sql, type ColumnType, type Kysely } from "kysely";
import type { ApplyResult, CatalogVersionInfo, EconomyChange, EconomyState, EconomyStore, LedgerEntry, StoredCatalog } from "../../../core/ports/economy-store";
import { EconomyChain, type ChainRecords, type EconomyCrashHook, type SourceClaim } from "../economy-chain";
import { SqlErasureMarks } from "./erasure-marks";
import { migrateToLatest, type SqlDialect } from "./migrations";

type Timestamp = ColumnType<Date | string, string, string>;

export interface EconomyDatabase {
  economy_claims: { key: string; app_id: string; user_id: string; from_seq: number; change: string; seq: number | null; at: Timestamp };
  economy_entries: { app_id: string; user_id: string; seq: number; source_key: string; entry: string; at: Timestamp };
  economy_catalogs: { app_id: string; version: number; body: string; saved_by: string; at: Timestamp };
}

const iso = (value: Date | string) => (value instanceof Date ? value.toISOString() : value);

export class KyselyEconomyStore implements EconomyStore {
  private readonly chain: EconomyChain;
  readonly erasures: SqlErasureMarks;

  constructor(
    private readonly db: Kysely<EconomyDatabase>,
    private readonly dialect: SqlDialect,
    /** Closes the database when the store owns it; one sharing the user store's leaves that to the store. */
    private readonly onClose: () => Promise<void> = async () => undefined,
    crashPoint?: EconomyCrashHook,
  ) {
    this.erasures = new SqlErasureMarks(db);
    this.chain = new EconomyChain(this.records(), crashPoint, { marks: this.erasures, erase: (userId) => this.erase(userId) });
  }

  migrate(): Promise<void> {
    return migrateToLatest(this.db as Kysely<any>, this.dialect);
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
    const rows = await this.db.selectFrom("economy_entries").select("entry").where("app_id", "=", appId).where("user_id", "=", userId).orderBy("seq").execute();
    return rows.map((r) => JSON.parse(r.entry) as LedgerEntry);
  }

  async appsOf(userId: string): Promise<string[]> {
    const rows = await this.db.selectFrom("economy_claims").select("app_id").distinct().where("user_id", "=", userId).orderBy("app_id").execute();
    return rows.map((r) => r.app_id);
  }

  async erase(userId: string): Promise<void> {
    await this.db.deleteFrom("economy_entries").where("user_id", "=", userId).execute();
    await this.db.deleteFrom("economy_claims").where("user_id", "=", userId).execute();
  }

  async saveCatalog(appId: string, expectedVersion: number, body: unknown, by: string, at: string): Promise<StoredCatalog | null> {
    const version = expectedVersion + 1;
    const result = await this.db
      .insertInto("economy_catalogs")
      .values({ app_id: appId, version, body: JSON.stringify(body), saved_by: by, at })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1 ? { appId, version, body, by, at } : null;
  }

  async latestCatalog(appId: string): Promise<StoredCatalog | null> {
    const row = await this.db.selectFrom("economy_catalogs").selectAll().where("app_id", "=", appId).orderBy("version", "desc").limit(1).executeTakeFirst();
    return row ? { appId, version: row.version, body: JSON.parse(row.body), by: row.saved_by, at: iso(row.at) } : null;
  }

  async listCatalogVersions(appId: string, options: { limit: number; before?: number }): Promise<CatalogVersionInfo[]> {
    let query = this.db.selectFrom("economy_catalogs").select(["version", "saved_by", "at"]).where("app_id", "=", appId);
    if (options.before !== undefined) query = query.where("version", "<", options.before);
    const rows = await query.orderBy("version", "desc").limit(options.limit).execute();
    return rows.map((row) => ({ appId, version: Number(row.version), by: row.saved_by, at: iso(row.at) }));
  }

  async findCatalog(appId: string, version: number): Promise<StoredCatalog | null> {
    const row = await this.db.selectFrom("economy_catalogs").selectAll().where("app_id", "=", appId).where("version", "=", version).executeTakeFirst();
    return row ? { appId, version: Number(row.version), body: JSON.parse(row.body), by: row.saved_by, at: iso(row.at) } : null;
  }

  close(): Promise<void> {
    return this.onClose();
  }

  private records(): ChainRecords {
    const db = this.db;
    return {
      async readClaim(key) {
        const row = await db.selectFrom("economy_claims").selectAll().where("key", "=", key).executeTakeFirst();
        if (!row) return null;
        const change = JSON.parse(row.change) as EconomyChange;
        const claim: SourceClaim = { key, appId: row.app_id, userId: row.user_id, source: change.source, sourceId: change.sourceId, fromSeq: row.from_seq, change, seq: row.seq, at: iso(row.at) };
        return claim;
      },
      async insertClaim(claim) {
        const result = await db
          .insertInto("economy_claims")
          .values({ key: claim.key, app_id: claim.appId, user_id: claim.userId, from_seq: claim.fromSeq, change: JSON.stringify(claim.change), seq: null, at: claim.at })
          .onConflict((oc) => oc.doNothing())
          .executeTakeFirst();
        return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
      },
      async markClaim(key, seq) {
        await db.updateTable("economy_claims").set({ seq }).where("key", "=", key).execute();
      },
      async headHint(appId, userId) {
        const row = await db
          .selectFrom("economy_entries")
          .select(sql<number | string | null>`max(seq)`.as("seq"))
          .where("app_id", "=", appId)
          .where("user_id", "=", userId)
          .executeTakeFirst();
        return Number(row?.seq ?? 0);
      },
      async raiseHead() {
        // max(seq) is exact here.
      },
      async readEntry(appId, userId, seq) {
        const row = await db.selectFrom("economy_entries").select("entry").where("app_id", "=", appId).where("user_id", "=", userId).where("seq", "=", seq).executeTakeFirst();
        return row ? (JSON.parse(row.entry) as LedgerEntry) : null;
      },
      async insertEntry(entry, sourceKey) {
        const result = await db
          .insertInto("economy_entries")
          .values({ app_id: entry.appId, user_id: entry.userId, seq: entry.seq, source_key: sourceKey, entry: JSON.stringify(entry), at: entry.at })
          .onConflict((oc) => oc.doNothing())
          .executeTakeFirst();
        return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
      },
    };
  }
}
