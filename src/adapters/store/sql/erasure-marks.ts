/** ErasureMarks (core/ports/erasure-marks.ts) over Kysely: one row per user, keyed by its id. */
import type { Kysely } from "kysely";
import type { ErasureMark, ErasureMarks } from "../../../core/ports/erasure-marks";

type Timestamp = Date | string;
export interface ErasureMarksTable {
  user_erasures: { user_id: string; at: Timestamp; finished_at: Timestamp | null };
}

const iso = (value: Timestamp) => (value instanceof Date ? value.toISOString() : value);

/** Created by the store's migrations and by the reward tables' (either may run first); "if not exists" both. */
export async function createErasureMarksTable(db: Kysely<any>, dialect: "sqlite" | "postgres"): Promise<void> {
  const timestamp = dialect === "postgres" ? "timestamptz" : "text";
  await db.schema
    .createTable("user_erasures")
    .ifNotExists()
    .addColumn("user_id", "text", (c) => c.primaryKey())
    .addColumn("at", timestamp, (c) => c.notNull())
    .addColumn("finished_at", timestamp)
    .execute();
}

export class SqlErasureMarks implements ErasureMarks {
  private readonly db: Kysely<ErasureMarksTable>;

  constructor(db: Kysely<any>) {
    this.db = db as Kysely<ErasureMarksTable>;
  }

  async mark(userId: string, at: string): Promise<void> {
    await this.db
      .insertInto("user_erasures")
      .values({ user_id: userId, at, finished_at: null })
      .onConflict((oc) => oc.column("user_id").doUpdateSet({ finished_at: null }))
      .execute();
  }

  async isMarked(userId: string): Promise<boolean> {
    const row = await this.db.selectFrom("user_erasures").select("user_id").where("user_id", "=", userId).executeTakeFirst();
    return row !== undefined;
  }

  async markedAmong(userIds: readonly string[]): Promise<string[]> {
    if (userIds.length === 0) return [];
    const rows = await this.db.selectFrom("user_erasures").select("user_id").where("user_id", "in", [...userIds]).execute();
    return rows.map((r) => r.user_id);
  }

  async finish(userId: string, at: string): Promise<void> {
    await this.db.updateTable("user_erasures").set({ finished_at: at }).where("user_id", "=", userId).execute();
  }

  async toRedo(finishedSince: string): Promise<ErasureMark[]> {
    const rows = await this.db
      .selectFrom("user_erasures")
      .selectAll()
      .where((eb) => eb.or([eb("finished_at", "is", null), eb("finished_at", ">=", finishedSince)]))
      .orderBy("at")
      .execute();
    return rows.map((r) => ({ userId: r.user_id, at: iso(r.at), finishedAt: r.finished_at === null ? null : iso(r.finished_at) }));
  }

  async forgetFinished(before: string): Promise<number> {
    const result = await this.db.deleteFrom("user_erasures").where("finished_at", "<", before).executeTakeFirst();
    return Number(result.numDeletedRows ?? 0);
  }
}

