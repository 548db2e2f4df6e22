/**
 * The rank index on Redis: per board period a sorted set of members and a hash of records.
 *
 *   lb:{<app>:<board>:<seq>}:z      sorted set; score = the sort score (the score, negated on a desc
 *                                   board), member = <sort subscore><reached at><userId>, fixed-width hex,
 *                                   so Redis's byte order of equal scores is the store's tie order
 *   lb:{…}:h                        userId → the record as JSON, with its version and member
 *   lb:{…}:ready / :build           the index is complete / who is building it
 *   lb:{…}:v                        the version every write sets; a process serves a page it holds
 *                                   while it is unchanged (rank-page-cache.ts)
 *
 * The hash tag keeps a period's keys in one slot, so each script is atomic on a cluster too.
 * A record is applied only over an older version, so writers racing each other or a rebuild
 * commute: whatever order the scripts run in, the newest version of every record stays.
 */
import crypto from "node:crypto";
import type { LeaderboardRecord, PeriodKey, SortOrder } from "../../core/ports/leaderboard-store";
import type { IndexedRecord, RankIndex } from "../../core/ports/rank-index";
import { GuardedRedis } from "./guarded-redis";
import { RankPageCache } from "./rank-page-cache";
import type { RedisTarget } from "./redis-connection";

const OFFSET = 2 ** 53;
const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");
/** An integer of ±2^53 as 14 hex digits that sort as the numbers do. */
const lex = (n: number) => hex(n + OFFSET, 14);

// KEYS: z, h, ready, version; ARGV[1] the write's version (rank-page-cache.ts), then 5 per record.
const APPLY = `
local n = 0
for i = 2, #ARGV, 5 do
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
if n > 0 then
  redis.call('SET', KEYS[4], ARGV[1])
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then redis.call('PEXPIRE', KEYS[4], ttl) end
end
-- One record: its player's rank too (0-based), when the index is complete.
if #ARGV == 6 and redis.call('EXISTS', KEYS[3]) == 1 then
  local held = cjson.decode(redis.call('HGET', KEYS[2], ARGV[2]))
  return {n, redis.call('ZRANK', KEYS[1], held.member)}
end
return {n}`;

// KEYS: z, h, version; ARGV: the user, the write's version.
const REMOVE = `
local old = redis.call('HGET', KEYS[2], ARGV[1])
if not old then return 0 end
redis.call('ZREM', KEYS[1], cjson.decode(old).member)
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('SET', KEYS[3], ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[3], ttl) end
return 1`;

// The end of a page's script: the records of `members` (hash KEYS[2]) as one JSON array in out[2].
const PAGE_OUT = `
local users = {}
for i, m in ipairs(members) do users[i] = string.sub(m, 27) end
local rows = redis.call('HMGET', KEYS[2], unpack(users))
for i = 1, #users do if not rows[i] then rows[i] = 'null' end end
out[2] = '[' .. table.concat(rows, ',') .. ']'
return out`;

// KEYS: z, h, ready, version. Nil while not ready; else the index's version first, then, unless
// it is ARGV[3] (the version the reader holds the page at), the records of ranks ARGV[1]..ARGV[2]
// (0-based) in rank order, as one JSON array (one parse in the reader instead of one per record).
const RANGE = `
if redis.call('EXISTS', KEYS[3]) == 0 then return false end
local version = redis.call('GET', KEYS[4]) or ''
if version ~= '' and version == ARGV[3] then return {version} end
local out = {version}
local members = redis.call('ZRANGE', KEYS[1], ARGV[1], ARGV[2])
if #members == 0 then return out end
${PAGE_OUT}`;

// KEYS: z, h, ready; ARGV: the user, the page's size. Nil while not ready; {} without a record; else
// where the page starts (0-based: aroundStart of rank-index.ts), then its records as one JSON array.
const AROUND = `
if redis.call('EXISTS', KEYS[3]) == 0 then return false end
local json = redis.call('HGET', KEYS[2], ARGV[1])
if not json then return {} end
local rank = redis.call('ZRANK', KEYS[1], cjson.decode(json).member)
if not rank then return {} end
local limit = tonumber(ARGV[2])
local start = math.max(0, rank - math.floor((limit - 1) / 2))
local members = redis.call('ZRANGE', KEYS[1], start, start + limit - 1)
local out = {start}
${PAGE_OUT}`;

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

// KEYS: build, ready, z, h, version. An ended period's index is marked ready with its expiry in one step,
// so no ready mark outlives the records it vouches for.
const FINISH_BUILD = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
local ttl = tonumber(ARGV[2])
if not ttl then redis.call('SET', KEYS[2], '1') return 1 end
if ttl <= 0 then redis.call('UNLINK', KEYS[2], KEYS[3], KEYS[4], KEYS[5]) return 1 end
redis.call('SET', KEYS[2], '1', 'PX', ttl)
for i = 3, 5 do redis.call('PEXPIRE', KEYS[i], ttl) end
return 1`;

// KEYS: z, h, ready, build, version; the same expiry for all but the build. At ≤ 0 all go at once:
// a build under way loses its claim, so it cannot mark ready an index missing what was deleted.
// UNLINK, not DEL: Redis frees a period's memory in its background thread (a DEL of a million
// records held Redis long enough for the watchdog's PING to go unanswered).
const EXPIRE = `
local ttl = tonumber(ARGV[1])
if ttl <= 0 then return redis.call('UNLINK', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]) end
for i = 1, 5 do if i ~= 4 then redis.call('PEXPIRE', KEYS[i], ttl) end end
return 1`;

interface Held extends LeaderboardRecord {
  member: string;
}

/**
 * Sent by their SHA (EVALSHA, ioredis falling back to EVAL once when Redis has not seen a script):
 * a top-100 read sent its script's text each time, a twentieth of its cost in socket writes.
 */
const SCRIPTS = { lbApply: APPLY, lbRemove: REMOVE, lbRange: RANGE, lbAround: AROUND, lbRanks: RANKS, lbRenewBuild: RENEW_BUILD, lbFinishBuild: FINISH_BUILD, lbExpire: EXPIRE };
type ScriptName = keyof typeof SCRIPTS;
type ScriptedClient = Record<ScriptName, (numKeys: number, ...args: Array<string | number>) => Promise<unknown>>;

export class RedisRankIndex implements RankIndex {
  /** Fails fast while Redis is away: the callers answer from the store meanwhile. */
  private readonly redis: GuardedRedis;
  private readonly pages = new RankPageCache();

  constructor(target: RedisTarget, keyPrefix: string) {
    this.redis = new GuardedRedis(target, { keyPrefix });
    for (const [name, lua] of Object.entries(SCRIPTS)) this.redis.client.defineCommand(name, { lua });
  }

  private script(name: ScriptName, numKeys: number, ...args: Array<string | number>): Promise<unknown> {
    return this.redis.run((r) => (r as unknown as ScriptedClient)[name](numKeys, ...args));
  }

  private keys(k: PeriodKey) {
    const tag = `lb:{${encodeURIComponent(k.app)}:${encodeURIComponent(k.board)}:${k.seq}}`;
    return { tag, z: `${tag}:z`, h: `${tag}:h`, ready: `${tag}:ready`, build: `${tag}:build`, version: `${tag}:v` };
  }

  async ready(key: PeriodKey): Promise<boolean> {
    return (await this.redis.run((r) => r.exists(this.keys(key).ready))) === 1;
  }

  async apply(key: PeriodKey, order: SortOrder, records: readonly LeaderboardRecord[]): Promise<number | null> {
    if (records.length === 0) return null;
    const { z, h, ready, version } = this.keys(key);
    const sign = order === "desc" ? -1 : 1;
    const args: Array<string | number> = [this.pages.nextVersion()];
    for (const r of records) {
      const member = `${lex(sign * r.subscore)}${hex(r.reachedAt, 12)}${r.userId}`;
      const held: Held = { ...r, member };
      args.push(r.userId, r.version, sign * r.score, member, JSON.stringify(held));
    }
    const [, rank] = (await this.script("lbApply", 4, z, h, ready, version, ...args)) as [number, number?];
    return rank === undefined || rank === null ? null : rank + 1;
  }

  async remove(key: PeriodKey, userId: string): Promise<void> {
    const { z, h, version } = this.keys(key);
    await this.script("lbRemove", 3, z, h, version, userId, this.pages.nextVersion());
  }

  range(key: PeriodKey, offset: number, limit: number): Promise<IndexedRecord[] | null> {
    return this.readRange(key, offset, limit, this.pages.versionOf(this.keys(key).tag, offset, limit));
  }

  private freshRange(key: PeriodKey, offset: number, limit: number): Promise<IndexedRecord[] | null> {
    return this.readRange(key, offset, limit, "");
  }

  private async readRange(key: PeriodKey, offset: number, limit: number, held: string): Promise<IndexedRecord[] | null> {
    const { tag, z, h, ready, version } = this.keys(key);
    const reply = (await this.script("lbRange", 4, z, h, ready, version, offset, offset + limit - 1, held)) as string[] | null;
    if (reply === null) return null;
    const [current, rows] = reply as [string, string?];
    if (current !== "" && current === held && rows === undefined) {
      // Another read may have replaced the page meanwhile: then read it out again.
      return this.pages.get(tag, offset, limit) ?? (await this.freshRange(key, offset, limit));
    }
    const out = ranked(offset, rows);
    this.pages.keep(tag, offset, limit, current, out);
    return out.slice();
  }

  async around(key: PeriodKey, userId: string, limit: number): Promise<IndexedRecord[] | null> {
    const { z, h, ready } = this.keys(key);
    const reply = (await this.script("lbAround", 3, z, h, ready, userId, limit)) as [number?, string?] | null;
    if (reply === null) return null;
    const [start, rows] = reply;
    return start === undefined ? [] : ranked(start, rows);
  }

  async ranksOf(key: PeriodKey, userIds: readonly string[]): Promise<IndexedRecord[] | null> {
    const { z, h, ready } = this.keys(key);
    const flat = (await this.script("lbRanks", 3, z, h, ready, ...userIds)) as Array<number | string> | null;
    if (flat === null) return null;
    const out: IndexedRecord[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ rank: Number(flat[i]) + 1, record: fromHeld(JSON.parse(String(flat[i + 1])) as Held) });
    return out;
  }

  async startBuild(key: PeriodKey, ttlMs: number): Promise<string | null> {
    const token = crypto.randomBytes(12).toString("hex");
    const taken = await this.redis.run((r) => r.set(this.keys(key).build, token, "PX", ttlMs, "NX"));
    return taken === "OK" ? token : null;
  }

  async renewBuild(key: PeriodKey, token: string, ttlMs: number): Promise<boolean> {
    return (await this.script("lbRenewBuild", 1, this.keys(key).build, token, ttlMs)) === 1;
  }

  async finishBuild(key: PeriodKey, token: string, expireInMs?: number): Promise<boolean> {
    const { build, ready, z, h, version } = this.keys(key);
    const ttl = expireInMs === undefined ? "" : String(Math.ceil(expireInMs));
    return (await this.script("lbFinishBuild", 5, build, ready, z, h, version, token, ttl)) === 1;
  }

  async expire(key: PeriodKey, ttlMs: number): Promise<void> {
    const { z, h, ready, build, version } = this.keys(key);
    await this.script("lbExpire", 5, z, h, ready, build, version, Math.ceil(ttlMs));
  }

  async close(): Promise<void> {
    this.redis.close();
  }
}

/** A script's JSON array of held records (null where a record went missing), ranked from `offset` + 1. */
function ranked(offset: number, rows: string | undefined): IndexedRecord[] {
  const out: IndexedRecord[] = [];
  if (rows === undefined) return out;
  (JSON.parse(rows) as Array<Held | null>).forEach((held, i) => {
    if (held) out.push({ rank: offset + i + 1, record: fromHeld(held) });
  });
  return out;
}

/** Field by field: an object rest (`{ member, ...record }`) was half of a top-100 read's CPU. */
function fromHeld(held: Held): LeaderboardRecord {
  return {
    userId: held.userId,
    name: held.name,
    score: held.score,
    subscore: held.subscore,
    metadata: held.metadata ?? null,
    reachedAt: held.reachedAt,
    updatedAt: held.updatedAt,
    version: held.version,
  };
}
