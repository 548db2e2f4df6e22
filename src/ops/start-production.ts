/**
 * `npm run start:prod` (after the build): check the settings, start the pm2 processes, and wait
 * until every one answers /readyz. It reports success only for a server that is serving; when a
 * process fails (or restarts) first, it prints that process's first error, removes the processes
 * from pm2 so they do not crash-loop, and exits 1.
 */
import "../config/node-floor"; // first: on Node < 22 it says so and exits, before a dependency fails to load
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { projectRoot } from "../config/settings-files";
import { checkConnections, formatConnections } from "./connect-check";
import { checkSettings, formatCheck } from "./settings-check";

const APP_NAME = "minigame-server";
/** pm2's own listen_timeout is 20 s; migrations on a first start may take a while too. */
const READY_TIMEOUT_MS = 90_000;
const POLL_MS = 500;
const ERROR_LINES = 20;

interface Pm2Process {
  name: string;
  pid: number;
  pm2_env: {
    status: string;
    restart_time: number;
    NODE_APP_INSTANCE?: number | string;
    pm_err_log_path?: string;
    pm_out_log_path?: string;
  };
}

const root = projectRoot();
const pm2Bin = path.join(root, "node_modules", ".bin", "pm2");
const pm2 = (...args: string[]) => execFileSync(pm2Bin, args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
/** pm2's processes of this app. jlist prints one JSON line, after the daemon's banner on a first call. */
const ours = (): Pm2Process[] => {
  const json = pm2("jlist").trim().split("\n").pop() ?? "[]";
  return (JSON.parse(json) as Pm2Process[]).filter((p) => p.name === APP_NAME);
};

async function main(): Promise<number> {
  const check = checkSettings(process.env);
  if (!check.ok) {
    process.stderr.write(`${formatCheck(check)}\nnot started: fix the settings above (npm run config:check checks them again)\n`);
    return 1;
  }
  process.stdout.write(`settings OK: ${check.summary}\n`);
  const { config } = check;

  // What would make every process fail at start is found here, once, and named; a platform that does
  // not answer is only a warning (it may be down for a moment; logins fail until it is back).
  const connections = await checkConnections(config);
  const unreachable = connections.filter((r) => !r.ok && !r.platform);
  for (const r of connections.filter((c) => !c.ok && c.platform)) process.stderr.write(`warning: ${r.what} did not answer (${r.detail ?? "no answer"})\n`);
  if (unreachable.length > 0) {
    process.stderr.write(`${formatConnections(unreachable)}\nnot started: ${unreachable.map((r) => r.what).join(", ")} did not answer (npm run config:check -- --connect checks again)\n`);
    return 1;
  }

  const existing = ours();
  if (existing.some((p) => p.pm2_env.status === "online" || p.pm2_env.status === "launching")) {
    process.stderr.write(`not started: ${APP_NAME} is already running under pm2; use \`npx pm2 reload ${APP_NAME}\` to restart it\n`);
    return 1;
  }
  if (existing.length > 0) pm2("delete", APP_NAME); // left over from a failed start

  const startedAt = Date.now();
  try {
    pm2("start", path.join(root, "ecosystem.config.js"), "--env", "production");
  } catch (err) {
    process.stderr.write(`not started: pm2 refused the start:\n${String((err as { stderr?: unknown }).stderr ?? err)}\n`);
    return 1;
  }

  const deadline = startedAt + READY_TIMEOUT_MS;
  for (;;) {
    const processes = ours();
    const failed = processes.find((p) => ["errored", "stopped"].includes(p.pm2_env.status) || p.pm2_env.restart_time > 0);
    if (failed) return fail(`process ${instanceOf(failed)} exited during start-up`, processes, startedAt);
    const ports = processes.map((p) => config.port + instanceOf(p));
    if (processes.length === check.instances && (await allReady(ports))) {
      process.stdout.write(`${APP_NAME} is ready: ${processes.length} process${processes.length === 1 ? "" : "es"} on port ${ports.sort().join(", ")}\n`);
      return 0;
    }
    if (Date.now() > deadline) return fail(`not ready after ${READY_TIMEOUT_MS / 1000} s`, processes, startedAt);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function instanceOf(p: Pm2Process): number {
  return Number(p.pm2_env.NODE_APP_INSTANCE ?? 0);
}

async function allReady(ports: number[]): Promise<boolean> {
  const answers = await Promise.all(
    ports.map((port) =>
      fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2000) }).then(
        (res) => res.status === 200,
        () => false,
      ),
    ),
  );
  return answers.every(Boolean);
}

function fail(what: string, processes: Pm2Process[], startedAt: number): number {
  const firstError = firstErrorSince(processes, startedAt);
  try {
    pm2("delete", APP_NAME);
  } catch {
    // already gone
  }
  process.stderr.write(
    `START FAILED: ${APP_NAME} ${what}; its processes were removed from pm2.\n` +
      (firstError ? `first error:\n${firstError}\n` : "no error output was captured; see `npx pm2 logs`\n"),
  );
  return 1;
}

/**
 * The first lines a process wrote to its error log (or, without any, its output log) since the
 * start. pm2 prefixes each line with its time (ecosystem.config.js sets `time: true`).
 */
function firstErrorSince(processes: Pm2Process[], startedAt: number): string | undefined {
  const since = Math.floor(startedAt / 1000) * 1000;
  for (const key of ["pm_err_log_path", "pm_out_log_path"] as const) {
    const candidates = processes
      .map((p) => linesSince(p.pm2_env[key], since))
      .filter((lines) => lines.length > 0)
      .sort((a, b) => a[0].at - b[0].at);
    if (candidates.length > 0) return candidates[0].slice(0, ERROR_LINES).map((l) => l.text).join("\n");
  }
  return undefined;
}

function linesSince(file: string | undefined, since: number): Array<{ at: number; text: string }> {
  if (!file || !fs.existsSync(file)) return [];
  const lines: Array<{ at: number; text: string }> = [];
  let at = 0;
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    // "2026-11-23T06:10:00: message" (local time, as new Date() reads it); a multi-line write is
    // prefixed once, so the lines after it belong to the same entry.
    const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}): ?(.*)$/.exec(line);
    if (match) at = new Date(match[1]).getTime();
    const text = match ? match[2] : line;
    if (at >= since && text.trim() !== "") lines.push({ at, text });
  }
  return lines;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`START FAILED: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
