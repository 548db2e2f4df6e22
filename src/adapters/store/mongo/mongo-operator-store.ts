/**
 * Operators and the audit trail on MongoDB (and FerretDB, whose updates are not compare-and-set):
 * an operator's document has its name as `_id`, so creation is an insert-only claim of the name;
 * later changes (role, password, disable) are an operator's deliberate edits, where the last writer
 * winning is what an operator expects. Audit entries are only ever inserted, and removed by the retention.
 */
import type { Collection, Connection } from "mongoose";
import type { AuditEntry, AuditQuery, NewOperator, Operator, OperatorChanges, OperatorStore } from "../../../core/ports/operator-store";
import { isDuplicateKey } from "./claims";

interface OperatorDoc extends Omit<Operator, "name"> {
  /** The sign-in name. */
  _id: string;
}

interface AuditDoc extends Omit<AuditEntry, "id"> {
  _id: string;
}

const MAX_AUDIT_LIMIT = 1000;

export class MongoOperatorStore implements OperatorStore {
  private readonly operators: Collection<OperatorDoc>;
  private readonly audit: Collection<AuditDoc>;

  constructor(
    connection: Connection,
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {
    this.operators = connection.collection<OperatorDoc>("console_operators");
    this.audit = connection.collection<AuditDoc>("console_audit");
  }

  async migrate(): Promise<void> {
    await this.operators.createIndex({ id: 1 });
    await this.audit.createIndex({ at: -1 });
  }

  async createOperator(operator: NewOperator): Promise<Operator | "name_taken"> {
    const { name, ...rest } = operator;
    const doc: OperatorDoc = { _id: name, ...rest, disabled: false, sessionEpoch: 0, updatedAt: operator.createdAt };
    try {
      await this.operators.insertOne(doc);
    } catch (err) {
      if (isDuplicateKey(err)) return "name_taken";
      throw err;
    }
    return toOperator(doc);
  }

  async findById(id: string): Promise<Operator | null> {
    const doc = await this.operators.findOne({ id });
    return doc ? toOperator(doc) : null;
  }

  async findByName(name: string): Promise<Operator | null> {
    const doc = await this.operators.findOne({ _id: name });
    return doc ? toOperator(doc) : null;
  }

  async list(): Promise<Operator[]> {
    const docs = await this.operators.find({}).sort({ _id: 1 }).toArray();
    return docs.map(toOperator);
  }

  async update(id: string, changes: OperatorChanges, at: string, ifSeed?: string): Promise<Operator | null> {
    const set: Partial<OperatorDoc> = { updatedAt: at };
    for (const [key, value] of Object.entries(changes)) if (value !== undefined) (set as Record<string, unknown>)[key] = value;
    // One conditioned update (FerretDB included: the filter and the write are one document operation).
    const result = await this.operators.updateOne(ifSeed === undefined ? { id } : { id, totpSecret: ifSeed }, { $set: set });
    if (result.matchedCount === 0) return null;
    return this.findById(id);
  }

  async appendAudit(entry: AuditEntry): Promise<void> {
    const { id, ...rest } = entry;
    await this.audit.insertOne({ _id: id, ...rest });
  }

  async pruneAudit(before: string, limit: number): Promise<number> {
    const old = await this.audit.find({ at: { $lt: before } }, { projection: { _id: 1 } }).sort({ at: 1 }).limit(limit).toArray();
    if (old.length === 0) return 0;
    return (await this.audit.deleteMany({ _id: { $in: old.map((d) => d._id) } })).deletedCount;
  }

  async searchAudit(query: AuditQuery): Promise<AuditEntry[]> {
    const filter: Record<string, unknown> = {};
    if (query.actor) filter.actor = query.actor;
    if (query.action) filter.action = query.action;
    if (query.target) filter.target = query.target;
    if (query.outcome) filter.outcome = query.outcome;
    const at: Record<string, string> = {};
    if (query.since) at.$gte = query.since;
    if (query.until) at.$lt = query.until;
    if (Object.keys(at).length > 0) filter.at = at;
    const limit = Math.min(Math.max(query.limit ?? 100, 1), MAX_AUDIT_LIMIT);
    const docs = await this.audit.find(filter).sort({ at: -1, _id: -1 }).limit(limit).toArray();
    return docs.map(({ _id, ...rest }) => ({ id: _id, ...rest, target: rest.target ?? null, detail: rest.detail ?? {} }));
  }

  close(): Promise<void> {
    return this.onClose();
  }
}

function toOperator(doc: OperatorDoc): Operator {
  return {
    id: doc.id,
    name: doc._id,
    role: doc.role,
    passwordHash: doc.passwordHash,
    mustChangePassword: doc.mustChangePassword,
    totpSecret: doc.totpSecret ?? null,
    disabled: Boolean(doc.disabled),
    sessionEpoch: doc.sessionEpoch ?? 0,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}
