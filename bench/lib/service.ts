/** The service under test: compiled once, started with the bench's settings, and logged in to. */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { simulatorPlatformEnv } from "../../src/simulator/simulator-server";
import { BUILD_DIR, log, nextCode, ROOT, TSX_IMPORT, type Context } from "./context";
import { freePort, httpGet, startNode, waitForHttp, type Child } from "./procs";

export function buildService(): void {
  log("compiling the service (tsconfig.build.json → bench/.build)…");
  fs.rmSync(BUILD_DIR, { recursive: true, force: true });
  const tsc = require.resolve("typescript/bin/tsc", { paths: [ROOT] });
  const result = spawnSync(process.execPath, [tsc, "-p", path.join(ROOT, "tsconfig.build.json"), "--outDir", BUILD_DIR], {
    cwd: ROOT,
    encoding: "utf8",
    // A loaded 2-core machine has taken over 3 minutes.
    timeout: 600_000,
  });
  if (result.status !== 0) {
    const why = result.error ? `${result.error.message}\n` : result.signal ? `stopped by ${result.signal}\n` : "";
    throw new Error(`build failed (use --no-build to run from src/ through tsx):\n${why}${result.stdout}${result.stderr}`);
  }
}

/** Starts the service (compiled, or from src/ through tsx) with the bench's settings plus `env`, and waits until it is ready. */
export async function startService(
  ctx: Context,
  name: string,
  env: Record<string, string>,
  cwd: string,
  extraArgs: string[],
  /** A wrapper entry (bench/servers/*.cjs) that starts the service itself, found through BENCH_SERVICE_ROOT. */
  wrapper?: string,
  /** Another node binary than the bench's (older than the floor: started through bench/servers/service-below-floor.cjs). */
  node?: string,
): Promise<{ child: Child; base: string; port: number }> {
  const port = Number(env.PORT ?? (await freePort()));
  const entry = wrapper
    ? [...(ctx.flags.build ? [] : TSX_IMPORT), wrapper]
    : ctx.flags.build
      ? [path.join(BUILD_DIR, "src/server/index.js")]
      : [...TSX_IMPORT, path.join(ROOT, "src/server/index.ts")];
  const child = startNode({
    name,
    node,
    args: [...extraArgs, ...entry],
    env: {
      NODE_ENV: "development",
      LOG_LEVEL: "warn",
      ...simulatorPlatformEnv(ctx.simulatorUrl),
      RATE_LIMIT_ENABLED: "false",
      JWT_SECRET: ctx.jwtSecret,
      ...env,
      ...(wrapper ? { BENCH_SERVICE_ROOT: ctx.flags.build ? BUILD_DIR : ROOT } : {}),
      PORT: String(port),
    },
    // A temp cwd, so a developer's .env in the repo cannot change what is measured.
    cwd,
  });
  const processPort = port + Number(env.NODE_APP_INSTANCE ?? 0);
  const base = `http://127.0.0.1:${processPort}`;
  await waitForHttp(child, `${base}/api/__bench_ready`, 60_000);
  return { child, base, port: processPort };
}

/** A WeChat login of `player` with a fresh code; its access token. */
export async function login(ctx: Context, base: string, player: string): Promise<string> {
  const body = await getJson(`${base}/api/minigame/wechat/login?jsCode=${nextCode(ctx, player)}`);
  const data = body.data as { token?: unknown } | undefined;
  if (!body.success || typeof data?.token !== "string") throw new Error(`login of ${player} failed: ${JSON.stringify(body)}`);
  return data.token;
}

export async function getJson(url: string): Promise<{ success?: boolean; data?: unknown }> {
  const res = await httpGet(url, 15_000);
  try {
    return JSON.parse(res.body) as { success?: boolean; data?: unknown };
  } catch {
    throw new Error(`${url}: HTTP ${res.status}, not JSON: ${res.body.slice(0, 200)}`);
  }
}
