/**
 * Douyin's feed direct play in the simulator (platforms/douyin/douyin-feed.ts; docs/growth.md): the
 * platform calls the developer's server, so the simulator is the caller here.
 * - `POST /__simulator/douyin-feed/register {appid, url, secret?, deadlineMs?}` → `{appid, url, secret}`:
 *   the console's setup of the ability; Douyin generates the secret (given here, it is used as is, so a
 *   test can match the server's DOUYIN_FEED_SECRETS); Douyin waits 300 ms (`deadlineMs`: a test on a
 *   slow store may give more, so that what it checks is the answer, not the machine's speed).
 * - `POST /__simulator/douyin-feed/pull {appid, openid, forge?: "signature" | "stale"}` → what Douyin
 *   saw: `{status, tookMs, late, signed, errNo, scenes}`. The call is Douyin's: GET with
 *   appid/openid/nonce/timestamp and `x-signature`; an answer later than 300 ms, not 2xx, or not
 *   signed with the app's secret over the same query and the exact body is no card (`scenes: []`).
 */
import crypto from "node:crypto";
import { feedSignatureMatches, signFeedPull } from "../platforms/douyin/douyin-feed";

const DOUYIN_DEADLINE_MS = 300;

export interface FeedPullReport {
  status: number;
  tookMs: number;
  late: boolean;
  /** Whether the answer carried a valid signature (Douyin drops it otherwise). */
  signed: boolean;
  errNo: number | null;
  /** The scenes Douyin would show a card for: none unless the answer was in time, 2xx, signed and err_no 0. */
  scenes: Array<{ scene: number; content_ids: string[]; extra: string }>;
}

export class DouyinFeedSimulator {
  private readonly apps = new Map<string, { url: string; secret: string; deadlineMs: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  owns(path: string): boolean {
    return path.startsWith("/__simulator/douyin-feed/");
  }

  async handle(path: string, body: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
    const problem = (errmsg: string) => ({ status: 400, body: { errcode: 400, errmsg } });
    const appid = typeof body.appid === "string" ? body.appid : "";
    if (!appid) return problem("expected appid");
    if (path === "/__simulator/douyin-feed/register") {
      const url = typeof body.url === "string" ? body.url : "";
      if (!/^https?:\/\//.test(url)) return problem("expected url: the developer's feed URL");
      const secret = typeof body.secret === "string" && body.secret ? body.secret : crypto.randomBytes(16).toString("hex");
      const deadlineMs = Number.isInteger(body.deadlineMs) && (body.deadlineMs as number) > 0 ? (body.deadlineMs as number) : DOUYIN_DEADLINE_MS;
      this.apps.set(appid, { url, secret, deadlineMs });
      return { status: 200, body: { appid, url, secret } };
    }
    if (path === "/__simulator/douyin-feed/pull") {
      const app = this.apps.get(appid);
      if (!app) return problem("register the app's feed URL first");
      if (typeof body.openid !== "string" || !body.openid) return problem("expected openid");
      return { status: 200, body: await this.pull(appid, body.openid, app, body.forge) };
    }
    return { status: 404, body: { errcode: 404, errmsg: `no simulator route for ${path}` } };
  }

  private async pull(appid: string, openid: string, app: { url: string; secret: string; deadlineMs: number }, forge: unknown): Promise<FeedPullReport> {
    const nowSec = Math.floor(this.now() / 1000) - (forge === "stale" ? 3600 : 0);
    const { search, signature } = signFeedPull(appid, openid, forge === "signature" ? `${app.secret}-forged` : app.secret, nowSec);
    const started = performance.now();
    const none = (status: number, late: boolean, signed = false, errNo: number | null = null): FeedPullReport => ({ status, tookMs: Math.round(performance.now() - started), late, signed, errNo, scenes: [] });
    try {
      const res = await fetch(`${app.url}?${search}`, { headers: { "x-signature": signature }, signal: AbortSignal.timeout(app.deadlineMs) });
      const text = await res.text();
      const query = new Map(new URLSearchParams(search));
      const signed = feedSignatureMatches(query, text, app.secret, res.headers.get("x-signature") ?? undefined);
      let answer: { err_no?: unknown; data?: { scenes?: FeedPullReport["scenes"] } } = {};
      try {
        answer = JSON.parse(text);
      } catch {
        return none(res.status, false, signed);
      }
      const errNo = typeof answer.err_no === "number" ? answer.err_no : null;
      const report = none(res.status, false, signed, errNo);
      if (res.ok && signed && errNo === 0 && Array.isArray(answer.data?.scenes)) report.scenes = answer.data!.scenes!;
      return report;
    } catch (err) {
      return none(0, (err as Error)?.name === "TimeoutError");
    }
  }
}
