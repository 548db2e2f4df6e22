/**
 * Analytics events and rollups over Kysely, for SQLite and PostgreSQL. Events are insert-only (a
 * known id is skipped, so a retried batch stores each event once); a rollup row is replaced whole
 * by an upsert on its (app, platform, date).
 */
import { type ColumnType, type Kysely, type Selectable } from "kysely";
import { scanStart, type AnalyticsEvent, type AnalyticsStore, type DailyRow, type EventScan, type RetentionRow, type RollupQuery } from "../../../core/ports/analytics-store";
import { migrateToLatest, type SqlDialect } from "./migrations";

type Timestamp = ColumnType<Date | string, string, string>;

interface EventsTable {
  id: string;
  name: string;
  app: string;
  platform: string;
  user_id: string | null;
  at: Timestamp;
  props: string;
  experiments: string;
  live_events: string;
}

interface RollupTable {
  app: string;
  platform: string;
  date: string;
  metrics: string;
}

export interface AnalyticsDatabase {
  analytics_events: EventsTable;
  analytics_daily: RollupTable;
  analytics_retention: RollupTable;
}

/** Rows per INSERT: well under SQLite's 32,766 bound variables (9 a row). */
const INSERT_CHUNK = 500;

export class KyselyAnalyticsStore implements AnalyticsStore {
  constructor(
    private readonly db: Kysely<AnalyticsDatabase>,
    private readonly dialect: SqlDialect,
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {}

  migrate(): Promise<void> {
    return migrateToLatest(this.db as Kysely<any>, this.dialect);
  }

  async append(events: AnalyticsEvent[]): Promise<void> {
    for (let i = 0; i < events.length; i += INSERT_CHUNK) {
      const rows = events.slice(i, i + INSERT_CHUNK).map((e) => ({
        id: e.id,
        name: e.name,
        app: e.app,
        platform: e.platform,
        user_id: e.userId,
        at: e.at,
        props: JSON.stringify(e.props),
        experiments: JSON.stringify(e.experiments),
        live_events: JSON.stringify(e.liveEvents),
      }));
      await this.db.insertInto("analytics_events").values(rows).onConflict((oc) => oc.column("id").doNothing()).execute();
    }
  }

  async scan(query: EventScan): Promise<AnalyticsEvent[]> {
    const after = query.after;
    let q = this.db.selectFrom("analytics_events").selectAll().where("at", ">=", scanStart(query)).where("at", "<", query.to);
    if (after) q = q.where((eb) => eb.or([eb("at", ">", after.at), eb.and([eb("at", "=", after.at), eb("id", ">", after.id)])]));
    const rows = await q.orderBy("at").orderBy("id").limit(query.limit).execute();
    return rows.map(toEvent);
  }

  async userEvents(query: { userId: string; after?: { at: string; id: string }; limit: number }): Promise<AnalyticsEvent[]> {
    let q = this.db.selectFrom("analytics_events").selectAll().where("user_id", "=", query.userId);
    const after = query.after;
    if (after) q = q.where("at", ">=", after.at).where((eb) => eb.or([eb("at", ">", after.at), eb.and([eb("at", "=", after.at), eb("id", ">", after.id)])]));
    return (await q.orderBy("at").orderBy("id").limit(query.limit).execute()).map(toEvent);
  }

  saveDaily(rows: DailyRow[]): Promise<void> {
    return this.upsert("analytics_daily", rows.map(({ app, platform, date, ...metrics }) => ({ app, platform, date, metrics: JSON.stringify(metrics) })));
  }

  saveRetention(rows: RetentionRow[]): Promise<void> {
    return this.upsert("analytics_retention", rows.map(({ app, platform, date, ...metrics }) => ({ app, platform, date, metrics: JSON.stringify(metrics) })));
  }

  async daily(query: RollupQuery): Promise<DailyRow[]> {
    return (await this.rows("analytics_daily", query)).map((r) => ({ app: r.app, platform: r.platform, date: r.date, ...JSON.parse(r.metrics) }));
  }

  async retention(query: RollupQuery): Promise<RetentionRow[]> {
    return (await this.rows("analytics_retention", query)).map((r) => ({ app: r.app, platform: r.platform, date: r.date, ...JSON.parse(r.metrics) }));
  }

  async deleteBefore(at: string): Promise<number> {
    const result = await this.db.deleteFrom("analytics_events").where("at", "<", at).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async eraseUser(userId: string): Promise<number> {
    const result = await this.db.deleteFrom("analytics_events").where("user_id", "=", userId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  close(): Promise<void> {
    return this.onClose();
  }

  private async upsert(table: "analytics_daily" | "analytics_retention", rows: RollupTable[]): Promise<void> {
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      await this.db
        .insertInto(table)
        .values(rows.slice(i, i + INSERT_CHUNK))
        .onConflict((oc) => oc.columns(["app", "platform", "date"]).doUpdateSet({ metrics: (eb) => eb.ref("excluded.metrics") }))
        .execute();
    }
  }

  private rows(table: "analytics_daily" | "analytics_retention", query: RollupQuery) {
    return this.db
      .selectFrom(table)
      .selectAll()
      .where("app", "=", query.app)
      .where("platform", "=", query.platform)
      .where("date", ">=", query.from)
      .where("date", "<=", query.to)
      .orderBy("date")
      .execute();
  }
}

function toEvent(row: Selectable<EventsTable>): AnalyticsEvent {
  return {
    id: row.id,
    name: row.name,
    app: row.app,
    platform: row.platform,
    userId: row.user_id,
    at: row.at instanceof Date ? row.at.toISOString() : row.at,
    props: JSON.parse(row.props),
    experiments: JSON.parse(row.experiments),
    liveEvents: JSON.parse(row.live_events),
  };
}

