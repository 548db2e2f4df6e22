/** The scale step: CPU per request of 2 service processes against 1, over Redis + PostgreSQL. */
import net from "node:net";
import { prepareBackends } from "../lib/backends";
import { log, nextCode, ROOT, type Context } from "../lib/context";
import { cpuProfiling, mainThreadProfile } from "../lib/cpu-profiles";
import { runHttpLoad, type HttpLoad, type Measurement } from "../lib/http-load";
import { isAborting, tempDir } from "../lib/lifecycle";
import { logResult, outsideFields } from "../lib/measure";
import { cpuTicks, freePort, meterOutsideLoad, rssMiB, waitUntilIdle, type Child } from "../lib/procs";
import { formatProfile, summarizeProfile } from "../lib/profile";
import { rowCells, section, simpleTable, skippedSection, targetText, type Row } from "../lib/report";
import { login, startService } from "../lib/service";

/** 2 processes' CPU per request ÷ 1 process's. */
const SCALE_MAX_RATIO = 1.15;

/** CPU per request of 2 processes (both processes' CPU) against 1, over Redis + PostgreSQL. */
export async function scaleStep(ctx: Context): Promise<string> {
  const title = "Scale: CPU per request, 2 processes against 1 (Redis + PostgreSQL)";
  const tmp = tempDir("mgl-bench-scale-");
  const backends = await prepareBackends(ctx, "redis-pg", tmp);
  if (typeof backends === "string") return skippedSection(title, backends);

  const results: Record<"returning" | "me", Row[]> = { returning: [], me: [] };
  const profiling = cpuProfiling(ctx, "scale");
  for (const count of [1, 2]) {
    if (isAborting()) break;
    const port = await neighbourPorts();
    const procs: { child: Child; base: string }[] = [];
    for (let i = 0; i < count; i++) {
      procs.push(
        await startService(
          ctx,
          `service ${i + 1} of ${count}`,
          { ...backends.env, PORT: String(port), INSTANCES: String(count), NODE_APP_INSTANCE: String(i), PUBLIC_ADDRESS: "127.0.0.1:{port}" },
          tmp,
          profiling.nodeArgs,
        ),
      );
    }
    const me = await login(ctx, procs[0].base, `scaleme${count}`);
    // Each process has its own returning player, as a player's logins mostly reach one process.
    for (let i = 0; i < count; i++) await login(ctx, procs[i].base, `scaleret${count}p${i}`);
    results.returning.push(
      await measureSpread(ctx, `returning-player login, ${count} process${count > 1 ? "es" : ""}`, procs, (i) => ({
        path: () => `/api/minigame/wechat/login?jsCode=${nextCode(ctx, `scaleret${count}p${i}`)}`,
      })),
    );
    results.me.push(
      await measureSpread(ctx, `GET /api/users/me, ${count} process${count > 1 ? "es" : ""}`, procs, () => ({
        path: "/api/users/me",
        headers: { authorization: `Bearer ${me}` },
      })),
    );
    for (const p of procs) await p.child.stop();
    if (ctx.flags.profile) {
      const file = mainThreadProfile(profiling.dir, procs[0].child.pid);
      if (file) ctx.profiles.push(`#### CPU profile of the first of ${count} processes, scale step\n\n\`\`\`\n${formatProfile(summarizeProfile(file, ROOT))}\n\`\`\``);
    }
  }
  const rows = [...results.returning, ...results.me].map(rowCells);
  const ratio = (pair: Row[], what: string): string[] => {
    const [one, two] = pair;
    if (!one?.cpuMsPerReq || !two?.cpuMsPerReq) return [what, "–", "not measured"];
    const r = two.cpuMsPerReq / one.cpuMsPerReq;
    return [what, `${r.toFixed(2)}×`, targetText({ ratio: r, max: SCALE_MAX_RATIO, against: "(2 processes' CPU/req ÷ 1's)" })];
  };
  const table = simpleTable(["Scenario", "rate", "p50 ms", "p99 ms", "CPU ms/req (all processes)", "RSS MiB (first)", "errors"], rows);
  const ratios = simpleTable(["Route", "CPU/req, 2 ÷ 1", "target"], [ratio(results.returning, "returning-player login"), ratio(results.me, "GET /api/users/me")]);
  return section(
    title,
    [
      "The processes are started as pm2 starts them in fork mode (INSTANCES=2, NODE_APP_INSTANCE=0/1, each on PORT + instance), sharing Redis (presence, driver, cache, locks) and PostgreSQL; the load is split evenly over both ports. This machine has 2 cores shared with the load generator and the simulator, so more processes cannot show more throughput here: scale is shown as CPU per request summed over every service process, which is what a second core would have to carry.",
    ],
    { markdown: `${table.markdown}\n\n${ratios.markdown}`, text: `${table.text}\n\n${ratios.text}` },
  );
}

/** Like measureHttp, with the connections split over several processes and the CPU of all of them counted. */
async function measureSpread(
  ctx: Context,
  label: string,
  procs: { child: Child; base: string }[],
  loadFor: (processIndex: number) => Pick<HttpLoad, "path" | "headers">,
): Promise<Row> {
  const { flags } = ctx;
  for (const p of procs) await waitUntilIdle(p.child.pid);
  const each = Math.max(1, Math.floor(flags.connections / procs.length));
  const run = (durationSec: number) =>
    Promise.all(procs.map((p, i) => runHttpLoad({ ...loadFor(i), baseUrl: p.base, connections: each, durationSec, maxRequests: flags.maxRequests })));
  // Each process warms its JIT on its own share of the load: give them a few seconds.
  await run(Math.max(flags.warmupSec, 3));
  log(`measuring ${label} (${flags.durationSec} s, ${each} connections to each of ${procs.length})`);
  const ticks0 = procs.map((p) => cpuTicks(p.child.pid) ?? 0);
  const outside = meterOutsideLoad();
  const ms = await run(flags.durationSec);
  const ticks = procs.reduce((sum, p, i) => sum + (cpuTicks(p.child.pid) ?? ticks0[i]) - ticks0[i], 0);
  const m: Measurement = {
    reqPerSec: ms.reduce((n, x) => n + x.reqPerSec, 0),
    p50: Math.max(...ms.map((x) => x.p50)),
    p99: Math.max(...ms.map((x) => x.p99)),
    ok: ms.reduce((n, x) => n + x.ok, 0),
    non2xx: ms.reduce((n, x) => n + x.non2xx, 0),
    errors: ms.reduce((n, x) => n + x.errors, 0),
    timeouts: ms.reduce((n, x) => n + x.timeouts, 0),
    durationSec: flags.durationSec,
    statusCounts: Object.assign({}, ...ms.map((x) => x.statusCounts)) as Record<string, number>,
  };
  const completed = m.ok + m.non2xx;
  const row: Row = {
    label,
    unit: "req/s",
    m,
    rssMiB: rssMiB(procs[0].child.pid),
    cpuMsPerReq: completed > 0 ? (ticks * 10) / completed : undefined,
    ...outsideFields(outside()),
  };
  logResult(row);
  return row;
}

/** Two neighbouring free ports (a process listens on PORT + NODE_APP_INSTANCE). */
async function neighbourPorts(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = await freePort();
    const next = await new Promise<boolean>((resolve) => {
      const srv = net.createServer();
      srv.once("error", () => resolve(false));
      srv.listen(port + 1, "127.0.0.1", () => srv.close(() => resolve(true)));
    });
    if (next) return port;
  }
  throw new Error("no two neighbouring free ports");
}
