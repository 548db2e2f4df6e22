/** What every part of the bench shares: where things are, the flags, the run's context and its log. */
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { RunTable } from "./report";

export const ROOT = path.resolve(__dirname, "../..");
export const BUILD_DIR = path.join(ROOT, "bench", ".build");
export const RESULTS_DIR = path.join(ROOT, "bench", "results");
export const PEERS_DIR = path.join(ROOT, "bench", "peers");
/** tsx's loader by absolute URL, so children with another cwd (the service's temp dir) still find it. */
export const TSX_IMPORT = ["--import", pathToFileURL(path.join(path.dirname(require.resolve("tsx/package.json", { paths: [ROOT] })), "dist/loader.mjs")).href];

export const SCENARIOS = ["access-token", "users-me", "config", "events", "returning-login", "new-login", "new-login-normal", "rooms"] as const;
/** Parts of the bench beyond the per-run scenarios, selectable with --only like them. */
export const STEPS = ["peers", "scale", "capacity", "room-traffic", "mongo-store", "leancloud-import", "leancloud-class-import", "leaderboards", "saves", "douyin-live", "douyin-feed", "analytics"] as const;
export type ScenarioId = (typeof SCENARIOS)[number] | (typeof STEPS)[number];
export const RUNS = ["embedded", "redis-pg", "redis-mongo"] as const;
export type RunId = (typeof RUNS)[number];

export interface Flags {
  durationSec: number;
  warmupSec: number;
  connections: number;
  roomConcurrency: number;
  roomPlayers: number;
  maxRequests: number;
  capacityClients: number;
  /** leancloud-import: players in the generated export. */
  importUsers: number;
  classRows: number;
  /** analytics: players a day in the generated dataset. */
  analyticsDau: number;
  /** room-traffic: fixed total rooms per step, measured whatever the latency (profiling, A/B); default the ramp. */
  trafficSteps?: number[];
  /** mongo-store: how many users each FerretDB handler is seeded with. */
  mongoUsers: number;
  runs: RunId[];
  only: ScenarioId[];
  build: boolean;
  anchor: boolean;
  profile: boolean;
  /** Measure the routes again on a second service with HTTP_HOT_FRONT=false (through Express), same run. */
  hotFrontAb: boolean;
  /** Measure the routes again on a second service with ANALYTICS_RECORD=false (no events kept), same run. */
  analyticsAb: boolean;
  /** Measure the routes again on a second service started with these node flags, same run. */
  nodeArgsAb?: string[];
  /** Measure the routes again on a second service run by another node binary (its path and version), same run. */
  nodeAb?: { path: string; version: string };
  out: string;
}

export interface Context {
  flags: Flags;
  tag: string;
  seq: number;
  simulatorUrl: string;
  /** One secret for every service process of the run, so a token from one is good on another. */
  jwtSecret: string;
  tables: RunTable[];
  profiles: string[];
  /** Extra Markdown sections (peers, scale, capacity), in order. */
  sections: string[];
  startedAt: number;
  /** Taken before the first probe of the machine, so the report shows the load the bench found. */
  loadAtStart: number[];
}

export function log(msg: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

/** A platform login code the simulator has not seen in this run. */
export function nextCode(ctx: Context, player: string): string {
  return `${player}.${ctx.tag}-${ctx.seq++}`;
}

export function errText(err: unknown): string {
  if (err instanceof AggregateError) return err.errors.map(errText).join("; ");
  return err instanceof Error ? err.message || err.name : String(err);
}
