/**
 * Douyin's live side in the simulator (platform-apis-5.md §1; docs/douyin-live.md):
 * - `POST /api/webcastmate/info` (X-Token: an app token) `{token}` → `data.info {room_id, anchor_open_id, nick_name, avatar_url}`;
 * - `POST /api/live_data/task/start|stop`, `GET /api/live_data/task/get` (`access-token`), err_no 2005003019 for a
 *   room that is not live; `GET /api/live_data/task/fail_data/get` pages of what the receiver did not take;
 * - `POST /api/gift/top_gift`, `/api/gaming_con/round/sync_status`, `/api/live_data/ack` (recorded, answered ok).
 * Controls: `POST /__simulator/douyin-live/streamer {name}` → `{token, roomId}` (a launch token, 30 min);
 * `POST /__simulator/douyin-live/register {url | urls, secrets: {live_gift: "…", …}}` (the console's push settings;
 * several URLs take turns, a duplicate going to the next);
 * `POST /__simulator/douyin-live/emit {roomId, comments?, gifts?, likes?, ratePerSec? (≤ 100), duplicateRate?, lostLikeRate?}`
 * pushes signed messages for the types whose task runs, answering what was sent once done; a push answered
 * non-2xx or later than 2 s (3 s gifts) failed: gifts and fan-club events go to the failed data, after 10
 * failures in a row the circuit opens for `breakerMs`; `POST /__simulator/douyin-live/end {roomId}` ends the stream.
 */
import crypto from "node:crypto";
import { signLivePush, type LiveMsgType } from "../platforms/douyin/douyin-live";

const ROOM_GONE = { err_no: 2005003019, err_msg: "room not found or live ended" };
const ok = (data: unknown = {}) => ({ err_no: 0, err_msg: "", logid: crypto.randomBytes(6).toString("hex"), data });

interface Room {
  roomId: string;
  anchorOpenId: string;
  nickName: string;
  live: boolean;
  tasks: Set<LiveMsgType>;
  failed: Map<LiveMsgType, Array<{ roomid: string; msg_type: string; payload: string }>>;
}

export interface EmitReport {
  sent: number;
  failed: number;
  duplicates: number;
  lostLikes: number;
  /** msg_ids of gifts emitted (each once, duplicates not repeated). */
  giftIds: string[];
  /** msg_ids of comments and likes pushed (lost likes left out). */
  otherIds: string[];
  /** Pushes not answered within Douyin's deadline (2 s, 3 s for gifts): failed too. */
  late: number;
  /** Gifts whose push failed (kept for the failed-data query). */
  failedGifts: number;
  /** How long answered pushes took, as Douyin's deadline counts it: from sending to the answer. */
  answeredMs: { p50: number; p99: number; max: number };
}

export class DouyinLiveSimulator {
  private readonly rooms = new Map<string, Room>();
  private readonly launchTokens = new Map<string, { roomId: string; until: number }>();
  /** Several URLs stand for receivers behind a balancer: pushes go round, a duplicate to the next one. */
  private registration?: { urls: string[]; secrets: Partial<Record<LiveMsgType, string>> };
  private consecutiveFailures = 0;
  private openUntil = 0;
  readonly calls: Array<{ path: string; body: unknown }> = [];

  constructor(
    private readonly appTokenValid: (token: string) => boolean,
    private readonly now: () => number = Date.now,
    private readonly breakerMs = 5000,
  ) {}

  owns(method: string, path: string): boolean {
    return path.startsWith("/__simulator/douyin-live/") || LIVE_PATHS.has(`${method} ${path}`);
  }

  async handle(method: string, path: string, query: URLSearchParams, headers: Record<string, string>, body: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
    if (path.startsWith("/__simulator/")) return this.control(path, body);
    const token = headers["x-token"] || headers["access-token"] || "";
    if (!this.appTokenValid(token)) return { status: 200, body: { err_no: 28001003, err_msg: "access token invalid" } };
    const p = method === "GET" ? Object.fromEntries(query) : body;
    const roomId = String(p.roomid ?? p.room_id ?? "");
    const room = this.rooms.get(roomId);
    switch (path) {
      case "/api/webcastmate/info": {
        const launch = this.launchTokens.get(String(body.token ?? ""));
        const r = launch && launch.until > this.now() ? this.rooms.get(launch.roomId) : undefined;
        if (!r?.live) return { status: 200, body: { err_no: 40001, err_msg: "token invalid or expired" } };
        return { status: 200, body: ok({ info: { room_id: Number(r.roomId), anchor_open_id: r.anchorOpenId, nick_name: r.nickName, avatar_url: "" } }) };
      }
      case "/api/live_data/task/start":
      case "/api/live_data/task/stop": {
        const type = String(p.msg_type ?? "") as LiveMsgType;
        if (!room?.live || !TYPES.has(type)) return { status: 200, body: ROOM_GONE };
        if (path.endsWith("start")) room.tasks.add(type);
        else room.tasks.delete(type);
        return { status: 200, body: ok({ task_id: `${roomId}-${type}` }) };
      }
      case "/api/live_data/task/get": {
        const type = String(p.msg_type ?? "") as LiveMsgType;
        const status = !room ? 1 : room.tasks.has(type) ? 3 : 2;
        return { status: 200, body: ok({ status }) };
      }
      case "/api/live_data/task/fail_data/get": {
        const type = String(p.msg_type ?? "") as LiveMsgType;
        if (!room || (type !== "live_gift" && type !== "live_fansclub")) return { status: 200, body: ROOM_GONE };
        const page = Math.max(1, Number(p.page_num) || 1);
        const size = Math.min(100, Math.max(1, Number(p.page_size) || 100));
        const all = room.failed.get(type) ?? [];
        return { status: 200, body: ok({ page_num: page, total_count: all.length, data_list: all.slice((page - 1) * size, page * size) }) };
      }
      default:
        this.calls.push({ path, body });
        if (path === "/api/gift/top_gift") return { status: 200, body: ok({ success_top_gift_id_list: Array.isArray(body.sec_gift_id_list) ? body.sec_gift_id_list : [] }) };
        return { status: 200, body: ok() };
    }
  }

  private async control(path: string, body: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
    switch (path) {
      case "/__simulator/douyin-live/streamer": {
        const name = typeof body.name === "string" && body.name ? body.name.slice(0, 64) : "streamer";
        const roomId = String(BigInt("0x" + crypto.createHash("sha256").update(name).digest("hex").slice(0, 12)) + 7_000_000_000_000n);
        if (!this.rooms.get(roomId)?.live) this.rooms.set(roomId, { roomId, anchorOpenId: `anchor_${name}`, nickName: name, live: true, tasks: new Set(), failed: new Map() });
        const token = crypto.randomBytes(24).toString("base64url");
        this.launchTokens.set(token, { roomId, until: this.now() + 30 * 60_000 });
        return { status: 200, body: { token, roomId } };
      }
      case "/__simulator/douyin-live/register": {
        const urls = Array.isArray(body.urls) ? body.urls.filter((u): u is string => typeof u === "string") : typeof body.url === "string" ? [body.url] : [];
        if (urls.length === 0 || !body.secrets || typeof body.secrets !== "object") return { status: 400, body: { error: "expected {url or urls, secrets}" } };
        this.registration = { urls, secrets: body.secrets as Partial<Record<LiveMsgType, string>> };
        return { status: 200, body: { ok: true } };
      }
      case "/__simulator/douyin-live/end": {
        const room = this.rooms.get(String(body.roomId ?? ""));
        if (room) {
          room.live = false;
          room.tasks.clear();
        }
        return { status: 200, body: { ok: Boolean(room) } };
      }
      case "/__simulator/douyin-live/emit":
        return { status: 200, body: await this.emit(body) };
      default:
        return { status: 404, body: { error: `no simulator route for ${path}` } };
    }
  }

  /** Pushes the asked messages at the asked rate, as Douyin would; resolves when all were tried. */
  private async emit(o: Record<string, unknown>): Promise<EmitReport | { error: string }> {
    const room = this.rooms.get(String(o.roomId ?? ""));
    if (!room || !this.registration) return { error: "unknown room, or no push URL registered" };
    const n = (v: unknown, max: number) => Math.max(0, Math.min(max, Math.floor(Number(v) || 0)));
    const rate = Math.max(1, n(o.ratePerSec ?? 100, 100));
    const dupRate = Math.min(1, Math.max(0, Number(o.duplicateRate) || 0));
    const lostLikeRate = Math.min(1, Math.max(0, Number(o.lostLikeRate) || 0));
    const report: EmitReport = { sent: 0, failed: 0, duplicates: 0, lostLikes: 0, giftIds: [], otherIds: [], late: 0, failedGifts: 0, answeredMs: { p50: 0, p99: 0, max: 0 } };
    const took: number[] = [];
    const plan: Array<[LiveMsgType, Record<string, unknown>]> = [];
    for (let i = 0; i < n(o.gifts, 100_000); i++) plan.push(["live_gift", { sec_gift_id: `gift_${i % 3}`, gift_num: 1, gift_value: [10, 100, 5200][i % 3] }]);
    for (let i = 0; i < n(o.comments, 100_000); i++) plan.push(["live_comment", { content: String(1 + (i % 2)) }]);
    for (let i = 0; i < n(o.likes, 100_000); i++) plan.push(["live_like", { like_num: 1 + (i % 5) }]);
    plan.sort(() => Math.random() - 0.5);
    const started = this.now();
    const pushes: Promise<void>[] = [];
    for (let i = 0; i < plan.length; i++) {
      const [type, fields] = plan[i];
      if (!room.tasks.has(type)) continue;
      const viewer = `viewer_${room.roomId}_${i % 20}`;
      const payload = { msg_id: `${room.roomId}_${crypto.randomBytes(8).toString("hex")}`, sec_openid: viewer, nickname: `Viewer ${i % 20}`, avatar_url: "", timestamp: this.now(), ...fields };
      if (type === "live_gift") report.giftIds.push(payload.msg_id);
      if (type === "live_like" && Math.random() < lostLikeRate) {
        report.lostLikes++;
        continue;
      }
      if (type !== "live_gift") report.otherIds.push(payload.msg_id);
      pushes.push(this.push(room, type, payload, report, i, took));
      if (Math.random() < dupRate) {
        report.duplicates++;
        pushes.push(this.push(room, type, payload, report, i + 1, took));
      }
      const due = started + ((i + 1) * 1000) / rate;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    await Promise.all(pushes);
    took.sort((a, b) => a - b);
    const at = (q: number) => (took.length === 0 ? 0 : Math.round(took[Math.min(took.length - 1, Math.floor(q * took.length))]));
    report.answeredMs = { p50: at(0.5), p99: at(0.99), max: at(1) };
    return report;
  }

  private async push(room: Room, type: LiveMsgType, payload: Record<string, unknown>, report: EmitReport, turn: number, took: number[]): Promise<void> {
    const reg = this.registration!;
    const url = reg.urls[turn % reg.urls.length];
    const secret = reg.secrets[type];
    const body = JSON.stringify([payload]);
    let delivered = false;
    if (secret && this.now() >= this.openUntil) {
      const started = performance.now();
      try {
        const res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", ...signLivePush(secret, room.roomId, type, body, this.now()) },
          body,
          signal: AbortSignal.timeout(type === "live_gift" ? 3000 : 2000),
        });
        await res.arrayBuffer();
        delivered = res.ok;
        took.push(performance.now() - started);
      } catch (err) {
        if ((err as Error)?.name === "TimeoutError") report.late++;
        delivered = false;
      }
    }
    if (delivered) {
      report.sent++;
      this.consecutiveFailures = 0;
      return;
    }
    report.failed++;
    if (++this.consecutiveFailures >= 10) this.openUntil = this.now() + this.breakerMs;
    if (type === "live_gift") report.failedGifts++;
    if (type === "live_gift" || type === "live_fansclub") {
      const list = room.failed.get(type) ?? [];
      list.push({ roomid: room.roomId, msg_type: type, payload: JSON.stringify(payload) });
      room.failed.set(type, list);
    }
  }
}

const TYPES = new Set<string>(["live_comment", "live_gift", "live_like", "live_fansclub"]);
const LIVE_PATHS = new Set([
  "POST /api/webcastmate/info",
  "POST /api/live_data/task/start",
  "POST /api/live_data/task/stop",
  "GET /api/live_data/task/get",
  "GET /api/live_data/task/fail_data/get",
  "POST /api/gift/top_gift",
  "POST /api/gaming_con/round/sync_status",
  "POST /api/live_data/ack",
]);
