/**
 * The douyin-feed step (issue 54): Douyin's feed direct-play call answered with signatures on, on Redis
 * + PostgreSQL. 1,000 Douyin players log in, half of them with ready scenes saved; then 50 connections
 * call `GET /api/minigame/douyin/feed` as Douyin does (a signed query per call, random players) for
 * --duration seconds. Measured: p50/p99 of the answer (target p99 < 100 ms, Douyin's deadline being
 * 300 ms), the rate, the server's CPU per call, and that a sample of answers is signed as Douyin checks.
 */
import { feedSignatureMatches, signFeedPull } from "../../src/platforms/douyin/douyin-feed";
import { prepareBackends } from "../lib/backends";
import { log, type Context } from "../lib/context";
import { runHttpLoad } from "../lib/http-load";
import { cpuPerRequest } from "../lib/measure";
import { tempDir } from "../lib/lifecycle";
import { cpuTicks, type Child } from "../lib/procs";
import { section, simpleTable, skippedSection, targetText } from "../lib/report";
import { startService } from "../lib/service";

const APP_ID = "tt_simulator_app";
const SECRET = "bench-feed-secret-0123456789";
const PLAYERS = 1000;
const P99_TARGET_MS = 100;

export async function douyinFeedStep(ctx: Context): Promise<string> {
  const title = "Douyin feed direct play: Douyin's signed call, answered signed (Redis + PostgreSQL)";
  const tmp = tempDir("mgl-bench-feed-");
  const backends = await prepareBackends(ctx, "redis-pg", tmp);
  if (typeof backends === "string") return skippedSection(title, backends);
  let child: Child | undefined;
  try {
    const service = await startService(ctx, "feed", { ...backends.env, DOUYIN_FEED_SECRETS: `${APP_ID}:${SECRET}` }, tmp, []);
    child = service.child;
    log(`douyin-feed: ${PLAYERS} Douyin players log in, half with ready scenes`);
    const openids: string[] = [];
    for (let i = 0; i < PLAYERS; i++) {
      const login = (await (await fetch(`${service.base}/api/minigame/douyin/login?code=bench-feed-${ctx.tag}-${i}`)).json()) as any;
      if (!login?.data?.openid) throw new Error(`login refused: ${JSON.stringify(login)}`);
      openids.push(login.data.openid);
      if (i % 2 === 0) {
        const scenes = [{ scene: 1, contentIds: ["CONTENT_OFFLINE"] }, { scene: 2, contentIds: ["CONTENT_STAMINA"], readyAt: new Date(Date.now() - 60_000).toISOString(), extra: `p${i}` }];
        const put = await fetch(`${service.base}/api/saves/douyin_feed/scenes`, { method: "PUT", headers: { "content-type": "application/json", authorization: `Bearer ${login.data.token}` }, body: JSON.stringify({ value: { scenes } }) });
        if (put.status !== 201) throw new Error(`saving scenes refused: ${put.status} ${await put.text()}`);
      }
    }
    const call = () => {
      const signed = signFeedPull(APP_ID, openids[Math.floor(Math.random() * openids.length)], SECRET, Math.floor(Date.now() / 1000));
      return `/api/minigame/douyin/feed?${signed.search}`;
    };
    const signatureOf = (path: string) => {
      const query = new Map(new URLSearchParams(path.slice(path.indexOf("?") + 1)));
      return signFeedPull(query.get("appid")!, query.get("openid")!, SECRET, Number(query.get("timestamp")), query.get("nonce")!).signature;
    };
    // A sample checked as Douyin checks it: the answer's signature over the same query and its body.
    let signedAnswers = 0;
    let withScenes = 0;
    const sample = 50;
    for (let i = 0; i < sample; i++) {
      const path = call();
      const res = await fetch(`${service.base}${path}`, { headers: { "x-signature": signatureOf(path) } });
      const body = await res.text();
      if (res.status === 200 && feedSignatureMatches(new Map(new URLSearchParams(path.slice(path.indexOf("?") + 1))), body, SECRET, res.headers.get("x-signature") ?? undefined)) signedAnswers++;
      if ((JSON.parse(body) as { data: { scenes: unknown[] } }).data.scenes.length > 0) withScenes++;
    }
    log(`douyin-feed: ${ctx.flags.connections} connections for ${ctx.flags.durationSec} s`);
    await runHttpLoad({ baseUrl: service.base, path: call, signed: (path) => ({ "x-signature": signatureOf(path) }), connections: ctx.flags.connections, durationSec: ctx.flags.warmupSec, maxRequests: ctx.flags.maxRequests });
    const before = cpuTicks(child.process.pid!);
    const m = await runHttpLoad({ baseUrl: service.base, path: call, signed: (path) => ({ "x-signature": signatureOf(path) }), connections: ctx.flags.connections, durationSec: ctx.flags.durationSec, maxRequests: ctx.flags.maxRequests });
    const cpu = cpuPerRequest(child.process.pid!, before, m.ok + m.non2xx);
    const rows = [
      ["answers p50 / p99 (ms)", `${m.p50} / ${m.p99}`, targetText({ ratio: m.p99, max: P99_TARGET_MS, against: "ms, p99" })],
      ["answers/s (all 200) / non-2xx / errors", `${Math.round(m.reqPerSec)} (${m.ok}) / ${m.non2xx} / ${m.errors}`, m.non2xx === 0 && m.errors === 0 ? "PASS (every call answered 200)" : "MISS"],
      ["server CPU ms per answer", cpu === undefined ? "–" : cpu.toFixed(3), "—"],
      [`sample: answers signed as Douyin checks / with scenes`, `${signedAnswers} of ${sample} / ${withScenes}`, signedAnswers === sample ? "PASS" : "MISS"],
    ];
    log(`douyin-feed: p99 ${m.p99} ms, ${Math.round(m.reqPerSec)}/s`);
    return section(
      title,
      [
        `${PLAYERS} Douyin players logged in, every other one with two ready scenes saved (douyin_feed/scenes). autocannon calls the feed URL as Douyin does, each call for a random player with its own nonce and timestamp, signed (x-signature); the server checks the signature, finds the player, reads the scenes and signs its answer. ${ctx.flags.connections} connections, ${ctx.flags.durationSec} s after ${ctx.flags.warmupSec} s of warm-up. The load generator, PostgreSQL, Redis and the service share the 2 cores.`,
      ],
      simpleTable(["Measure", "result", "target"], rows),
    );
  } finally {
    await child?.stop();
  }
}
