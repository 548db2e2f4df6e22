/**
 * Analytics events and rollups on MongoDB (and FerretDB). An event's id is its `_id`, so a retried
 * batch stores each event once (an unordered insert skips the duplicates). A rollup row is replaced
 * whole: every writer of a row computes the same content from the same events, so a replace needs
 * no compare-and-set (FerretDB has none); an upsert that lost an insert race is simply repeated.
 */
import type { Collection, Connection } from "mongoose";
import { scanStart, type AnalyticsEvent, type AnalyticsStore, type DailyRow, type EventScan, type RetentionRow, type RollupQuery } from "../../../core/ports/analytics-store";
import { isDuplicateKey } from "./claims";

interface EventDoc extends Omit<AnalyticsEvent, "id"> {
  _id: string;
}

interface RollupDoc {
  _id: string;
  app: string;
  platform: string;
  date: string;
  metrics: Record<string, unknown>;
}

const INSERT_CHUNK = 500;
const UPSERT_ATTEMPTS = 3;

export class MongoAnalyticsStore implements AnalyticsStore {
  private readonly events: Collection<EventDoc>;
  private readonly dailyRows: Collection<RollupDoc>;
  private readonly retentionRows: Collection<RollupDoc>;

  constructor(
    connection: Connection,
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {
    this.events = connection.collection<EventDoc>("analytics_events");
    this.dailyRows = connection.collection<RollupDoc>("analytics_daily");
    this.retentionRows = connection.collection<RollupDoc>("analytics_retention");
  }

  async migrate(): Promise<void> {
    await this.events.createIndex({ at: 1, _id: 1 });
    await this.events.createIndex({ userId: 1 });
    await this.dailyRows.createIndex({ app: 1, platform: 1, date: 1 });
    await this.retentionRows.createIndex({ app: 1, platform: 1, date: 1 });
  }

  async append(events: AnalyticsEvent[]): Promise<void> {
    for (let i = 0; i < events.length; i += INSERT_CHUNK) {
      const docs = events.slice(i, i + INSERT_CHUNK).map(({ id, ...rest }) => ({ _id: id, ...rest }));
      try {
        await this.events.insertMany(docs, { ordered: false });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        // Some were stored before (a retried batch). Whether a server went on past the duplicates
        // differs (FerretDB), so the ones still missing are inserted one by one.
        const stored = new Set((await this.events.find({ _id: { $in: docs.map((d) => d._id) } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id));
        for (const doc of docs) {
          if (stored.has(doc._id)) continue;
          try {
            await this.events.insertOne(doc);
          } catch (e) {
            if (!isDuplicateKey(e)) throw e;
          }
        }
      }
    }
  }

  async scan(query: EventScan): Promise<AnalyticsEvent[]> {
    const after = query.after;
    const range = { at: { $gte: scanStart(query), $lt: query.to } };
    const filter = after ? { $and: [range, { $or: [{ at: { $gt: after.at } }, { at: after.at, _id: { $gt: after.id } }] }] } : range;
    const docs = await this.events.find(filter).sort({ at: 1, _id: 1 }).limit(query.limit).toArray();
    return docs.map(({ _id, ...rest }) => ({ id: _id, ...rest }));
  }

  async userEvents(query: { userId: string; after?: { at: string; id: string }; limit: number }): Promise<AnalyticsEvent[]> {
    const after = query.after;
    const filter = after ? { userId: query.userId, at: { $gte: after.at }, $or: [{ at: { $gt: after.at } }, { at: after.at, _id: { $gt: after.id } }] } : { userId: query.userId };
    const docs = await this.events.find(filter).sort({ at: 1, _id: 1 }).limit(query.limit).toArray();
    return docs.map(({ _id, ...rest }) => ({ id: _id, ...rest }));
  }

  saveDaily(rows: DailyRow[]): Promise<void> {
    return this.replace(this.dailyRows, rows.map(({ app, platform, date, ...metrics }) => ({ _id: rowId(app, platform, date), app, platform, date, metrics })));
  }

  saveRetention(rows: RetentionRow[]): Promise<void> {
    return this.replace(this.retentionRows, rows.map(({ app, platform, date, ...metrics }) => ({ _id: rowId(app, platform, date), app, platform, date, metrics })));
  }

  async daily(query: RollupQuery): Promise<DailyRow[]> {
    return (await this.rows(this.dailyRows, query)).map((d) => ({ app: d.app, platform: d.platform, date: d.date, ...(d.metrics as object) }) as DailyRow);
  }

  async retention(query: RollupQuery): Promise<RetentionRow[]> {
    return (await this.rows(this.retentionRows, query)).map((d) => ({ app: d.app, platform: d.platform, date: d.date, ...(d.metrics as object) }) as RetentionRow);
  }

  async deleteBefore(at: string): Promise<number> {
    return (await this.events.deleteMany({ at: { $lt: at } })).deletedCount;
  }

  async eraseUser(userId: string): Promise<number> {
    return (await this.events.deleteMany({ userId })).deletedCount;
  }

  close(): Promise<void> {
    return this.onClose();
  }

  private async replace(collection: Collection<RollupDoc>, docs: RollupDoc[]): Promise<void> {
    // Row by row, a replace or else an insert: FerretDB's upserts lose races with each other (an
    // E11000 on both sides) and a large bulk write holds its lock long enough to time others out.
    for (const doc of docs) {
      for (let attempt = 1; ; attempt++) {
        if ((await collection.replaceOne({ _id: doc._id }, doc)).matchedCount > 0) break;
        try {
          await collection.insertOne(doc);
          break;
        } catch (err) {
          // Another rollup inserted the row first: replace it with ours (the same numbers, or newer).
          if (attempt >= UPSERT_ATTEMPTS || !isDuplicateKey(err)) throw err;
        }
      }
    }
  }

  private rows(collection: Collection<RollupDoc>, query: RollupQuery): Promise<RollupDoc[]> {
    return collection.find({ app: query.app, platform: query.platform, date: { $gte: query.from, $lte: query.to } }).sort({ date: 1 }).toArray();
  }
}

function rowId(app: string, platform: string, date: string): string {
  return `${app}|${platform}|${date}`;
}
