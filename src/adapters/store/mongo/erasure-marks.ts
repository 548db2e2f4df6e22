/**
 * ErasureMarks (core/ports/erasure-marks.ts) on MongoDB: `user_erasures`, `_id` = the user id. The
 * mark that decides is the insert; `finishedAt` is bookkeeping for the sweep (a lost update only
 * makes it run the erase once more), so plain updates by `_id` are enough on FerretDB.
 */
import type { Collection, Connection } from "mongoose";
import type { ErasureMark, ErasureMarks } from "../../../core/ports/erasure-marks";
import { isDuplicateKey } from "./claims";

interface MarkDoc {
  _id: string;
  at: Date;
  finishedAt: Date | null;
}

export class MongoErasureMarks implements ErasureMarks {
  private readonly marks: Collection<MarkDoc>;

  constructor(connection: Connection) {
    this.marks = connection.collection<MarkDoc>("user_erasures");
  }

  async mark(userId: string, at: string): Promise<void> {
    try {
      await this.marks.insertOne({ _id: userId, at: new Date(at), finishedAt: null });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      await this.marks.updateOne({ _id: userId }, { $set: { finishedAt: null } });
    }
  }

  async isMarked(userId: string): Promise<boolean> {
    return (await this.marks.findOne({ _id: userId })) !== null;
  }

  async markedAmong(userIds: readonly string[]): Promise<string[]> {
    if (userIds.length === 0) return [];
    return (await this.marks.find({ _id: { $in: [...userIds] } }, { projection: { _id: 1 } }).toArray()).map((m) => m._id);
  }

  async finish(userId: string, at: string): Promise<void> {
    await this.marks.updateOne({ _id: userId }, { $set: { finishedAt: new Date(at) } });
  }

  async toRedo(finishedSince: string): Promise<ErasureMark[]> {
    // Few documents (erases of the last day), so no index: FerretDB would scan anyway.
    const docs = await this.marks.find({ $or: [{ finishedAt: null }, { finishedAt: { $gte: new Date(finishedSince) } }] }).toArray();
    return docs
      .map((d) => ({ userId: d._id, at: d.at.toISOString(), finishedAt: d.finishedAt ? d.finishedAt.toISOString() : null }))
      .sort((a, b) => a.at.localeCompare(b.at));
  }

  async forgetFinished(before: string): Promise<number> {
    const result = await this.marks.deleteMany({ finishedAt: { $lt: new Date(before) } });
    return result.deletedCount;
  }
}
