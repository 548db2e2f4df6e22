/**
 * The rank index on Redis: per board period a sorted set of members and a hash of records.
 *
 *   lb:{<app>:<board>:<seq>}:z      sorted set; score = the sort score (the score, negated on a desc
 *                                   board), member = <sort subscore><reached at><userId>, fixed-width hex,
 *                                   so Redis's byte order of equal scores is the store's tie order
 *   lb:{…}:h                        userId → the record as JSON, with its version and member
 *   lb:{…}:ready / :build           the index is complete / who is building it
 *
 * The hash tag keeps a period's keys in one slot, so each script is atomic on a cluster too.
 * A record is applied only over an older version, so writers racing each other or a rebuild
 * commute: whatever order the scripts run in, the newest version of every record stays.
 */
import crypto from "node:crypto";
import type { LeaderboardRecord, PeriodKey, SortOrder } from "../../core/ports/leaderboard-store";
import type { IndexedRecord, RankIndex } from "../../core/ports/rank-index";
import { GuardedRedis } from "./guarded-redis";
import type { RedisTarget } from "./redis-connection";

const OFFSET = 2 ** 53;
const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");
/** An integer of ±2^53 as 14 hex digits that sort as the numbers do. */
const lex = (n: number) => hex(n + OFFSET, 14);

const APPLY = `
local n = 0
for i = 1, #ARGV, 5 do
  local user, version, score, member, json = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  local old = redis.call('HGET', KEYS[2], user)
  local keep = false
  if old then
    local held = cjson.decode(old)
    if held.version >= version then keep = true else redis.call('ZREM', KEYS[1], held.member) end
  end
  if not keep then
    redis.call('ZADD', KEYS[1], score, member)
    redis.call('HSET', KEYS[2], user, json)
    n = n + 1
  end
end
-- One record: its player's rank too (0-based), when the index is complete.
if #ARGV == 5 and redis.call('EXISTS', KEYS[3]) == 1 then
  local held = cjson.decode(redis.call('HGET', KEYS[2], ARGV[1]))
  return {n, redis.call('ZRANK', KEYS[1], held.member)}
end
return {n}`;

const REMOVE = `
local old = redis.call('HGET', KEYS[2], ARGV[1])
if not old then return 0 end
redis.call('ZREM', KEYS[1], cjson.decode(old).member)
redis.call('HDEL', KEYS[2], ARGV[1])
return 1`;

// Records of ranks ARGV[1]..ARGV[2] (0-based), as JSON, in rank order; nil while not ready.
const RANGE = `
if redis.call('EXISTS', KEYS[3]) == 0 then return false end
local members = redis.call('ZRANGE', KEYS[1], ARGV[1], ARGV[2])
if #members == 0 then return {} end
local users = {}
for i, m in ipairs(members) do users[i] = string.sub(m, 27) end
return redis.call('HMGET', KEYS[2], unpack(users))`;

// For each user: its 0-based rank and record, or nothing; nil while not ready.
const RANKS = `
if redis.call('EXISTS', KEYS[3]) == 0 then return false end
local out = {}
for i, user in ipairs(ARGV) do
  local json = redis.call('HGET', KEYS[2], user)
  if json then
    local rank = redis.call('ZRANK', KEYS[1], cjson.decode(json).member)
    if rank then table.insert(out, rank) table.insert(out, json) end
  end
end
return out`;

const RENEW_BUILD = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])`;

// KEYS: build, ready, z, h. An ended period's index is marked ready with its expiry in one step,
// so no ready mark outlives the records it vouches for.
const FINISH_BUILD = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
local ttl = tonumber(ARGV[2])
if not ttl then redis.call('SET', KEYS[2], '1') return 1 end
if ttl <= 0 then redis.call('DEL', KEYS[2], KEYS[3], KEYS[4]) return 1 end
redis.call('SET', KEYS[2], '1', 'PX', ttl)
redis.call('PEXPIRE', KEYS[3], ttl)
redis.call('PEXPIRE', KEYS[4], ttl)
return 1`;

// KEYS: z, h, ready, build; the same expiry for the first three. At ≤ 0 all four go at once: a
// build under way loses its claim, so it cannot mark ready an index missing what was deleted.
const EXPIRE = `
local ttl = tonumber(ARGV[1])
if ttl <= 0 then return redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4]) end
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ttl) end
return 1`;

interface Held extends LeaderboardRecord {
  member: string;
}

export class RedisRankIndex implements RankIndex {
  /** Fails fast while Redis is away: the callers answer from the store meanwhile. */
  private readonly redis: GuardedRedis;

  constructor(target: RedisTarget, keyPrefix: string) {
    this.redis = new GuardedRedis(target, { keyPrefix });
  }

  private keys(k: PeriodKey) {
    const tag = `lb:{${encodeURIComponent(k.app)}:${encodeURIComponent(k.board)}:${k.seq}}`;
    return { z: `${tag}:z`, h: `${tag}:h`, ready: `${tag}:ready`, build: `${tag}:build` };
  }

  async ready(key: PeriodKey): Promise<boolean> {
    return (await this.redis.run((r) => r.exists(this.keys(key).ready))) === 1;
  }

  async apply(key: PeriodKey, order: SortOrder, records: readonly LeaderboardRecord[]): Promise<number | null> {
    if (records.length === 0) return null;
    const { z, h, ready } = this.keys(key);
    const sign = order === "desc" ? -1 : 1;
    const args: Array<string | number> = [];
    for (const r of records) {
      const member = `${lex(sign * r.subscore)}${hex(r.reachedAt, 12)}${r.userId}`;
      const held: Held = { ...r, member };
      args.push(r.userId, r.version, sign * r.score, member, JSON.stringify(held));
    }
    const [, rank] = (await this.redis.run((r) => r.eval(APPLY, 3, z, h, ready, ...args))) as [number, number?];
    return rank === undefined || rank === null ? null : rank + 1;
  }

  async remove(key: PeriodKey, userId: string): Promise<void> {
    const { z, h } = this.keys(key);
    await this.redis.run((r) => r.eval(REMOVE, 2, z, h, userId));
  }

  async range(key: PeriodKey, offset: number, limit: number): Promise<IndexedRecord[] | null> {
    const { z, h, ready } = this.keys(key);
    const rows = (await this.redis.run((r) => r.eval(RANGE, 3, z, h, ready, offset, offset + limit - 1))) as Array<string | null> | null;
    if (rows === null) return null;
    const out: IndexedRecord[] = [];
    rows.forEach((json, i) => {
      if (json) out.push({ rank: offset + i + 1, record: fromHeld(json) });
    });
    return out;
  }

  async ranksOf(key: PeriodKey, userIds: readonly string[]): Promise<IndexedRecord[] | null> {
    const { z, h, ready } = this.keys(key);
    const flat = (await this.redis.run((r) => r.eval(RANKS, 3, z, h, ready, ...userIds))) as Array<number | string> | null;
    if (flat === null) return null;
    const out: IndexedRecord[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ rank: Number(flat[i]) + 1, record: fromHeld(String(flat[i + 1])) });
    return out;
  }

  async startBuild(key: PeriodKey, ttlMs: number): Promise<string | null> {
    const token = crypto.randomBytes(12).toString("hex");
    const taken = await this.redis.run((r) => r.set(this.keys(key).build, token, "PX", ttlMs, "NX"));
    return taken === "OK" ? token : null;
  }

  async renewBuild(key: PeriodKey, token: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.run((r) => r.eval(RENEW_BUILD, 1, this.keys(key).build, token, ttlMs))) === 1;
  }

  async finishBuild(key: PeriodKey, token: string, expireInMs?: number): Promise<boolean> {
    const { build, ready, z, h } = this.keys(key);
    const ttl = expireInMs === undefined ? "" : String(Math.ceil(expireInMs));
    return (await this.redis.run((r) => r.eval(FINISH_BUILD, 4, build, ready, z, h, token, ttl))) === 1;
  }

  async expire(key: PeriodKey, ttlMs: number): Promise<void> {
    const { z, h, ready, build } = this.keys(key);
    await this.redis.run((r) => r.eval(EXPIRE, 4, z, h, ready, build, Math.ceil(ttlMs)));
  }

  async close(): Promise<void> {
    this.redis.close();
  }
}

function fromHeld(json: string): LeaderboardRecord {
  const { member: _member, ...record } = JSON.parse(json) as Held;
  return { ...record, metadata: record.metadata ?? null };
}
