/**
 * The LiveOpsStore on MongoDB, race-free on FerretDB (whose only race-free write is an insert into
 * `_id`): both collections are insert-only.
 *
 *   liveops_versions     `_id` = "<app>:<version>"
 *   liveops_assignments  `_id` = "<app>:<user>:<experiment>"
 */
import type { Collection, Connection } from "mongoose";
import type { AssignmentRecord, DefinitionsVersionInfo, LiveOpsStore, StoredDefinitions } from "../../../core/ports/liveops-store";
import { insertOrReadBack } from "./unknown-outcome";

interface VersionDoc {
  _id: string;
  appId: string;
  version: number;
  /** JSON text: flag keys and item ids are the studio's, never safe as document keys. */
  body: string;
  by: string;
  at: string;
}
interface AssignmentDoc extends AssignmentRecord {
  _id: string;
}
interface PropertyDoc {
  _id: string;
  appId: string;
  userId: string;
  key: string;
  /** JSON text, like the definitions. */
  value: string;
}

const key = (...parts: string[]) => parts.map(encodeURIComponent).join(":");

export class MongoLiveOpsStore implements LiveOpsStore {
  private readonly versions: Collection<VersionDoc>;
  private readonly assigned: Collection<AssignmentDoc>;
  private readonly props: Collection<PropertyDoc>;

  constructor(
    connection: Connection,
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {
    this.versions = connection.collection<VersionDoc>("liveops_versions");
    this.assigned = connection.collection<AssignmentDoc>("liveops_assignments");
    this.props = connection.collection<PropertyDoc>("liveops_properties");
  }

  async migrate(): Promise<void> {
    await this.versions.createIndex({ appId: 1, version: -1 });
    await this.assigned.createIndex({ appId: 1, userId: 1 });
    await this.props.createIndex({ appId: 1, userId: 1 });
  }

  async saveDefinitions(appId: string, expectedVersion: number, body: unknown, by: string, at: string): Promise<StoredDefinitions | null> {
    const version = expectedVersion + 1;
    const doc = { _id: key(appId, String(version)), appId, version, body: JSON.stringify(body), by, at };
    // A retry of ours that had landed (its answer lost) reads back as ours, not as another writer's.
    const outcome = await insertOrReadBack(this.versions, doc, (stored) => stored.by === by && stored.at === at && stored.body === doc.body);
    return outcome.kind === "inserted" ? { appId, version, body, by, at } : null;
  }

  async latestVersion(appId: string): Promise<number> {
    const doc = await this.versions.find({ appId }, { projection: { version: 1 } }).sort({ version: -1 }).limit(1).next();
    return doc?.version ?? 0;
  }

  async findDefinitions(appId: string, version: number): Promise<StoredDefinitions | null> {
    const doc = await this.versions.findOne({ _id: key(appId, String(version)) });
    return doc ? { appId, version: doc.version, body: JSON.parse(doc.body), by: doc.by, at: doc.at } : null;
  }

  async listVersions(appId: string, options: { limit: number; before?: number }): Promise<DefinitionsVersionInfo[]> {
    const filter = options.before === undefined ? { appId } : { appId, version: { $lt: options.before } };
    const docs = await this.versions.find(filter, { projection: { body: 0 } }).sort({ version: -1 }).limit(options.limit).toArray();
    return docs.map((doc) => ({ appId, version: doc.version, by: doc.by, at: doc.at }));
  }

  async assignments(appId: string, userId: string): Promise<Record<string, string>> {
    const docs = await this.assigned.find({ appId, userId }).toArray();
    return Object.fromEntries(docs.map((d) => [d.experimentId, d.variant]));
  }

  async assign(record: AssignmentRecord): Promise<string> {
    const outcome = await insertOrReadBack(this.assigned, { _id: key(record.appId, record.userId, record.experimentId), ...record }, (stored) => stored.variant === record.variant);
    return outcome.kind === "inserted" ? record.variant : outcome.holder.variant;
  }

  async properties(appId: string, userId: string): Promise<Record<string, unknown>> {
    const docs = await this.props.find({ appId, userId }).toArray();
    return Object.fromEntries(docs.map((d) => [d.key, JSON.parse(d.value)]));
  }

  async setProperty(appId: string, userId: string, key: string, value: unknown): Promise<void> {
    // Last writer wins (no compare-and-set needed): a property is a fact the game states, not a grant.
    await this.props.replaceOne({ _id: `${encodeURIComponent(appId)}:${encodeURIComponent(userId)}:${encodeURIComponent(key)}` }, { appId, userId, key, value: JSON.stringify(value) }, { upsert: true });
  }

  async eraseUser(userId: string): Promise<number> {
    const assignments = await this.assigned.deleteMany({ userId });
    const properties = await this.props.deleteMany({ userId });
    return assignments.deletedCount + properties.deletedCount;
  }

  close(): Promise<void> {
    return this.onClose();
  }
}
