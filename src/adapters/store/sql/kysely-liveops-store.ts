/**
 * The LiveOpsStore over Kysely (SQLite and PostgreSQL): versions and assignments are inserts that
 * the primary key decides (ON CONFLICT DO NOTHING), so two writers never overwrite each other.
 */
import type { ColumnType, Kysely } from "kysely";
import type { AssignmentRecord, DefinitionsVersionInfo, LiveOpsStore, StoredDefinitions } from "../../../core/ports/liveops-store";
import { migrateToLatest, type SqlDialect } from "./migrations";

type Timestamp = ColumnType<Date | string, string, string>;

export interface LiveOpsDatabase {
  liveops_versions: { app_id: string; version: number; body: string; saved_by: string; at: Timestamp };
  liveops_assignments: { app_id: string; user_id: string; experiment_id: string; variant: string; at: Timestamp };
  liveops_properties: { app_id: string; user_id: string; key: string; value: string };
}

const iso = (value: Date | string) => (value instanceof Date ? value.toISOString() : value);

export class KyselyLiveOpsStore implements LiveOpsStore {
  constructor(
    private readonly db: Kysely<LiveOpsDatabase>,
    private readonly dialect: SqlDialect,
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {}

  migrate(): Promise<void> {
    return migrateToLatest(this.db as Kysely<any>, this.dialect);
  }

  async saveDefinitions(appId: string, expectedVersion: number, body: unknown, by: string, at: string): Promise<StoredDefinitions | null> {
    const version = expectedVersion + 1;
    const result = await this.db
      .insertInto("liveops_versions")
      .values({ app_id: appId, version, body: JSON.stringify(body), saved_by: by, at })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1 ? { appId, version, body, by, at } : null;
  }

  async latestVersion(appId: string): Promise<number> {
    const row = await this.db.selectFrom("liveops_versions").select("version").where("app_id", "=", appId).orderBy("version", "desc").limit(1).executeTakeFirst();
    return row ? Number(row.version) : 0;
  }

  async findDefinitions(appId: string, version: number): Promise<StoredDefinitions | null> {
    const row = await this.db.selectFrom("liveops_versions").selectAll().where("app_id", "=", appId).where("version", "=", version).executeTakeFirst();
    return row ? { appId, version: Number(row.version), body: JSON.parse(row.body), by: row.saved_by, at: iso(row.at) } : null;
  }

  async listVersions(appId: string, options: { limit: number; before?: number }): Promise<DefinitionsVersionInfo[]> {
    let query = this.db.selectFrom("liveops_versions").select(["version", "saved_by", "at"]).where("app_id", "=", appId);
    if (options.before !== undefined) query = query.where("version", "<", options.before);
    const rows = await query.orderBy("version", "desc").limit(options.limit).execute();
    return rows.map((row) => ({ appId, version: Number(row.version), by: row.saved_by, at: iso(row.at) }));
  }

  async assignments(appId: string, userId: string): Promise<Record<string, string>> {
    const rows = await this.db.selectFrom("liveops_assignments").select(["experiment_id", "variant"]).where("app_id", "=", appId).where("user_id", "=", userId).execute();
    return Object.fromEntries(rows.map((r) => [r.experiment_id, r.variant]));
  }

  async assign(record: AssignmentRecord): Promise<string> {
    await this.db
      .insertInto("liveops_assignments")
      .values({ app_id: record.appId, user_id: record.userId, experiment_id: record.experimentId, variant: record.variant, at: record.at })
      .onConflict((oc) => oc.doNothing())
      .execute();
    const row = await this.db
      .selectFrom("liveops_assignments")
      .select("variant")
      .where("app_id", "=", record.appId)
      .where("user_id", "=", record.userId)
      .where("experiment_id", "=", record.experimentId)
      .executeTakeFirstOrThrow();
    return row.variant;
  }

  async properties(appId: string, userId: string): Promise<Record<string, unknown>> {
    const rows = await this.db.selectFrom("liveops_properties").select(["key", "value"]).where("app_id", "=", appId).where("user_id", "=", userId).execute();
    return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value)]));
  }

  async setProperty(appId: string, userId: string, key: string, value: unknown): Promise<void> {
    const json = JSON.stringify(value);
    await this.db
      .insertInto("liveops_properties")
      .values({ app_id: appId, user_id: userId, key, value: json })
      .onConflict((oc) => oc.columns(["app_id", "user_id", "key"]).doUpdateSet({ value: json }))
      .execute();
  }

  async eraseUser(userId: string): Promise<number> {
    const assignments = await this.db.deleteFrom("liveops_assignments").where("user_id", "=", userId).executeTakeFirst();
    const properties = await this.db.deleteFrom("liveops_properties").where("user_id", "=", userId).executeTakeFirst();
    return Number(assignments.numDeletedRows) + Number(properties.numDeletedRows);
  }

  close(): Promise<void> {
    return this.onClose();
  }
}
