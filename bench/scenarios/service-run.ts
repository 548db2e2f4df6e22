/**
 * One service run (embedded defaults, Redis + PostgreSQL, or Redis + MongoDB): its baselines, then
 * its route and room scenarios. The MongoDB run measures the two logins only: it runs on FerretDB,
 * whose speed says nothing of MongoDB's, so it shows the store under load, not a figure to compare.
 */
import path from "node:path";
import { prepareBackends } from "../lib/backends";
import { ROOT, log, type Context, type RunId } from "../lib/context";
import { cpuProfiling, mainThreadProfile } from "../lib/cpu-profiles";
import { isAborting, tempDir } from "../lib/lifecycle";
import { formatProfile, summarizeProfile } from "../lib/profile";
import type { Child } from "../lib/procs";
import { textTable, type RunTable } from "../lib/report";
import { getJson, login, startService } from "../lib/service";
import { measureBaselines } from "./baselines";
import { writeConfigDefinitions } from "./liveops-definitions";
import { loginRoomPlayers, measureRoomJoins, startNoauthServer } from "./rooms";
import { measureNewLoginNormal, measureRoutes, type RouteVariant } from "./routes";

const TITLES: Record<RunId, string> = {
  embedded: "Service: embedded defaults (SQLite + in-memory cache)",
  "redis-pg": "Service: Redis + PostgreSQL",
  "redis-mongo": "Service: Redis + MongoDB (FerretDB)",
};

export async function serviceRun(ctx: Context, run: RunId): Promise<RunTable> {
  const { flags } = ctx;
  const title = TITLES[run];
  const table: RunTable = { title, rows: [], notes: [] };
  const mongo = run === "redis-mongo";
  if (mongo) table.notes.push("MongoDB here is FerretDB 1.24 on SQLite, far slower than MongoDB: these rows show that the store holds up under load, not MongoDB's speed.");
  const only = mongo ? flags.only.filter((s) => s === "returning-login" || s === "new-login") : flags.only;
  const tmp = tempDir(`mgl-bench-${run}-`);

  const backends = await prepareBackends(ctx, run, tmp);
  if (typeof backends === "string") {
    log(`skipping the ${run} run: ${backends}`);
    table.notes.push(`skipped: ${backends}`);
    process.stdout.write(`\n== ${title} ==\n  skipped: ${backends}\n`);
    return table;
  }
  table.title = `${title} — ${backends.describe}`;

  // Baselines right before this run's scenarios, so a busy neighbour skews both sides alike.
  const baselines = await measureBaselines(ctx);
  table.rows.push(baselines.node, baselines.express);

  const profiling = cpuProfiling(ctx, run);
  const noauth = only.includes("rooms") ? await startNoauthServer(profiling.nodeArgs, backends.noauthRedisUrl) : undefined;

  // GET /api/config is measured with 50 flags, 5 experiments and 5 events (the other routes then run beside them too).
  const liveops: Record<string, string> = only.includes("config") ? { LIVEOPS_FILE: writeConfigDefinitions(tmp) } : {};
  const { child: service, base } = await startService(ctx, `service (${run})`, { ...backends.env, ...liveops }, tmp, profiling.nodeArgs);
  log(`${run}: service up (pid ${service.pid}) on ${base}`);

  // Preparation: warm token cache, a user for /users/me, the returning player, the room players.
  const accessToken = await getJson(`${base}/api/minigame/wechat/access_token`);
  if (!accessToken.success) throw new Error(`access_token warm-up failed: ${JSON.stringify(accessToken)}`);
  const me = await login(ctx, base, "benchuser1");
  await login(ctx, base, "returning");
  const roomTokens = noauth ? await loginRoomPlayers(ctx, base) : [];

  // The A/B of the hot routes' node:http front: the same routes, each right after the main service's,
  // on a second service that serves them through Express.
  // Without the A/B, a run measuring /api/config puts the other routes side by side with a service of
  // the example's small definitions (issue 52: login and /users/me no slower for 50 flags).
  const variant = flags.hotFrontAb
    ? await startThroughExpress(ctx, run, backends.env, tmp, profiling.nodeArgs)
    : flags.analyticsAb
      ? await startSecond(ctx, run, backends.env, tmp, profiling.nodeArgs, "no events kept (ANALYTICS_RECORD=false)", { ANALYTICS_RECORD: "false" })
    : flags.nodeArgsAb
      ? await startSecond(ctx, run, backends.env, tmp, [...profiling.nodeArgs, ...flags.nodeArgsAb], `node ${flags.nodeArgsAb.join(" ")}`, {})
    : flags.nodeAb
      ? await startSecond(ctx, run, backends.env, tmp, profiling.nodeArgs, `on Node ${flags.nodeAb.version}`, {}, flags.nodeAb.path)
      : only.includes("config")
      ? await startSecond(ctx, run, backends.env, tmp, profiling.nodeArgs, "the example's definitions (no LIVEOPS_FILE)", {})
      : undefined;
  try {
    await measureRoutes(ctx, run, table, service, base, me, baselines, only, variant);
  } finally {
    await variant?.service.stop();
  }
  if (noauth) await measureRoomJoins(ctx, table, { child: service, base }, noauth, roomTokens, backends.noauthRedisUrl);
  await service.stop();
  let normalService: Child | undefined;
  if (run === "embedded" && flags.only.includes("new-login-normal") && !isAborting()) {
    normalService = await measureNewLoginNormal(ctx, table, backends.env, tmp, profiling.nodeArgs, baselines);
  }
  await baselines.stop();
  if (noauth) await noauth.child.stop();
  if (flags.profile) {
    const profiled: [string, Child | undefined][] = [
      ["the service", service],
      ["the SQLITE_SYNCHRONOUS=NORMAL service", normalService],
      ["the no-auth Colyseus server", noauth?.child],
    ];
    for (const [who, child] of profiled) {
      if (!child) continue;
      const file = mainThreadProfile(profiling.dir, child.pid);
      if (!file) {
        table.notes.push(`no CPU profile of ${who}'s main thread was written in ${profiling.dir}`);
        continue;
      }
      const text = formatProfile(summarizeProfile(file, ROOT));
      ctx.profiles.push(`#### CPU profile of ${who}, ${run} run (${path.relative(ROOT, file)})\n\n\`\`\`\n${text}\n\`\`\``);
      process.stdout.write(`\nCPU profile of ${who}, ${run} run:\n${text}\n`);
    }
  }
  process.stdout.write(`\n${textTable(table)}\n`);
  return table;
}

/** A second service with HTTP_HOT_FRONT=false (the hot routes through Express), logged in to like the main one. */
function startThroughExpress(ctx: Context, run: RunId, env: Record<string, string>, tmp: string, nodeArgs: string[]): Promise<RouteVariant> {
  return startSecond(ctx, run, env, tmp, nodeArgs, "through Express (HTTP_HOT_FRONT=false)", { HTTP_HOT_FRONT: "false" });
}

/** A second service with `changes` to the main one's settings, logged in to like it; its rows are labelled `what`. */
async function startSecond(ctx: Context, run: RunId, env: Record<string, string>, tmp: string, nodeArgs: string[], what: string, changes: Record<string, string>, node?: string): Promise<RouteVariant> {
  // Another Node (older than the floor) starts through the wrapper that lets it past the floor check.
  const wrapper = node ? path.join(ROOT, "bench/servers/service-below-floor.cjs") : undefined;
  const { child, base } = await startService(ctx, `service (${run}, ${what})`, { ...env, SQLITE_PATH: path.join(tmp, "second.sqlite"), ...changes }, tmp, nodeArgs, wrapper, node);
  // Another player than the main service's: both services may share one database and cache, and a
  // second login of benchuser1 would end the session the main service's /users/me token belongs to (401s).
  const userToken = await login(ctx, base, "benchuser2");
  await login(ctx, base, "returning");
  return { service: child, base, userToken, suffix: ` — ${what}` };
}
