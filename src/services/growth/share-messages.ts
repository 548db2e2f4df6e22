/**
 * WeChat's updatable share messages for a room or an invite (docs/growth.md): the sharer gets an
 * activity id (private: only they can share it) to pass to wx.updateShareMenu / wx.shareAppMessage with
 * the query `share=<activityId>`; each player who arrives through it joins (once per player), which
 * tells them the room or invite it was for and moves the card's "{member_count}/{room_limit}" on, to
 * "started" when full. Shares live in the cache until WeChat's id expires (24 h): nothing of value
 * hangs on them, and a lost cache only loses the count.
 *
 * Douyin has no equivalent server API (none found in its docs or SDKs): its shares carry the query only.
 */
import { AppError } from "../../core/errors";
import type { Cache } from "../../core/ports/cache";
import type { Logger } from "../../logging/logger";
import type { UpdatableState } from "../../platforms/wechat/wechat-growth";

export interface ShareRecord {
  app: string;
  activityId: string;
  subject: "room" | "invite";
  subjectId: string;
  limit: number;
  createdBy: string;
  private: boolean;
  expiresAtMs: number;
}

export interface ShareView {
  activityId: string;
  subject: "room" | "invite";
  subjectId: string;
  members: number;
  limit: number;
  expiresAt: string;
  /** What the sharer puts in the share's query; the invitee reads it from the launch options. */
  query: string;
}

export interface ShareMessageDeps {
  cache: Pick<Cache, "get" | "set" | "setIfAbsent" | "increment">;
  openidOf(app: string, userId: string): Promise<string | null>;
  createActivityId(app: string, openid: string | undefined): Promise<{ activityId: string; expiresAtSec: number }>;
  update(app: string, activityId: string, update: UpdatableState): Promise<void>;
  logger: Logger;
  now?: () => number;
}

const DAY_MS = 24 * 3600_000;

export class ShareMessages {
  private readonly now: () => number;

  constructor(private readonly deps: ShareMessageDeps) {
    this.now = deps.now ?? Date.now;
  }

  async create(app: string, userId: string, input: { subject: "room" | "invite"; subjectId: string; limit: number; private?: boolean }): Promise<ShareView> {
    const openid = await this.deps.openidOf(app, userId);
    if (openid === null) throw new AppError("user_disabled", { message: "No such user" });
    if (!openid) throw new AppError("growth_unsupported", { data: { reason: "no_wechat_login" } });
    const { activityId, expiresAtSec } = await this.deps.createActivityId(app, input.private ? openid : undefined);
    const expiresAtMs = expiresAtSec > 0 ? expiresAtSec * 1000 : this.now() + DAY_MS;
    const record: ShareRecord = { app, activityId, subject: input.subject, subjectId: input.subjectId, limit: input.limit, createdBy: userId, private: Boolean(input.private), expiresAtMs };
    await this.deps.cache.set(shareKey(activityId), JSON.stringify(record), this.ttlSec(record));
    // The sharer is the first member.
    const { members } = await this.join(app, userId, activityId);
    return this.view(record, members);
  }

  /** A player arriving through the share: once per player it counts and updates the card. */
  async join(app: string, userId: string, activityId: string): Promise<ShareView & { joined: boolean; updated: boolean }> {
    const raw = await this.deps.cache.get(shareKey(activityId));
    const record = raw ? (JSON.parse(raw) as ShareRecord) : undefined;
    if (!record || record.app !== app || record.expiresAtMs <= this.now()) throw new AppError("share_not_found", { data: { activityId } });
    const ttlSec = this.ttlSec(record);
    const joined = await this.deps.cache.setIfAbsent(memberKey(activityId, userId), "1", ttlSec * 1000);
    let members: number;
    if (joined) members = (await this.deps.cache.increment(countKey(activityId), ttlSec)).count;
    else members = Number((await this.deps.cache.get(countKey(activityId))) ?? "1");
    let updated = false;
    // Only a new member changes the card; the join that fills the room starts it (final on WeChat's side).
    if (joined && members <= record.limit) {
      const update: UpdatableState = members < record.limit ? { state: 0, members, limit: record.limit } : { state: 1, path: `?share=${activityId}`, versionType: "release" };
      try {
        await this.deps.update(app, activityId, update);
        updated = true;
      } catch (err) {
        this.deps.logger.warn({ err, event: "share_update_failed", app, activityId }, "WeChat's updatable message could not be updated; the join is counted");
      }
    }
    return { ...this.view(record, members), joined, updated };
  }

  private view(record: ShareRecord, members: number): ShareView {
    return { activityId: record.activityId, subject: record.subject, subjectId: record.subjectId, members, limit: record.limit, expiresAt: new Date(record.expiresAtMs).toISOString(), query: `share=${record.activityId}` };
  }

  private ttlSec(record: ShareRecord): number {
    return Math.max(60, Math.ceil((record.expiresAtMs - this.now()) / 1000));
  }
}

const shareKey = (activityId: string) => `growth:share:${activityId}`;
const memberKey = (activityId: string, userId: string) => `growth:share:${activityId}:member:${userId}`;
const countKey = (activityId: string) => `growth:share:${activityId}:members`;
