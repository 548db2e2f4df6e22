/**
 * Result rows → a plain-text table for the terminal and a Markdown table, and the Markdown file
 * (bench/results/latest.md) that gathers every table and section of a run.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { log, type Context } from "./context";
import type { Measurement } from "./http-load";

export interface Target {
  /** The measured ratio (or amount) the target is about. */
  ratio: number;
  /** Passes at or above this… */
  min?: number;
  /** …or at or below this (a cost, e.g. CPU per request or MiB). */
  max?: number;
  /** What the ratio is taken against, e.g. "Express hello" or "join without auth". */
  against: string;
}

export interface Row {
  /** Which scenario, for rows other sections compare against (e.g. "returning-login"). */
  id?: string;
  label: string;
  /** "req/s" or "joins/s". */
  unit: string;
  m: Measurement;
  rssMiB?: number;
  /** CPU time (user + system) the server process spent per completed request, in ms. */
  cpuMsPerReq?: number;
  vsNode?: number;
  /** The node:http hello's CPU per request ÷ this row's (a route's cost in bare hellos, inverted). */
  vsNodeCpu?: number;
  vsExpress?: number;
  target?: Target;
  /** A second target, against the bare node:http hello of the same run (issue 56: rates). */
  nodeTarget?: Target;
  /** Average cores that processes other than the bench's own (and the database servers) took. */
  outsideCores?: number;
  /** Average cores the Redis and PostgreSQL servers took during the measurement. */
  databaseCores?: number;
  /** The first failure seen, if any (room loops). */
  note?: string;
}

export interface RunTable {
  title: string;
  rows: Row[];
  notes: string[];
}

const HEADERS = ["Scenario", "rate", "p50 ms", "p99 ms", "× node", "× node CPU", "× Express", "target", "node target", "CPU ms/req", "RSS MiB", "errors"];

function num(n: number | undefined, digits = 0): string {
  if (n === undefined || !Number.isFinite(n)) return "–";
  return n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function ms(n: number): string {
  if (!Number.isFinite(n)) return "–";
  if (Number.isInteger(n)) return String(n); // autocannon's latencies are whole milliseconds
  return n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : n.toFixed(0);
}

function ratio(n: number | undefined): string {
  return n === undefined || !Number.isFinite(n) ? "–" : `${n.toFixed(2)}×`;
}

export function targetText(t: Target | undefined): string {
  if (!t) return "–";
  const digits = Math.abs(t.ratio) >= 100 ? 0 : 2;
  if (t.max !== undefined) return `${t.ratio <= t.max ? "PASS" : "MISS"} (${t.ratio.toFixed(digits)} ≤ ${t.max} ${t.against})`;
  return `${t.ratio >= (t.min ?? 0) ? "PASS" : "MISS"} (${t.ratio.toFixed(digits)} ≥ ${t.min} vs ${t.against})`;
}

function errorsText(m: Measurement): string {
  const bad = m.non2xx + m.errors;
  if (bad === 0) return "0";
  const codes = Object.entries(m.statusCounts)
    .map(([c, n]) => `${c}:${n}`)
    .join(" ");
  return `${bad}${codes ? ` (${codes})` : ""}`;
}

function cells(r: Row): string[] {
  return [
    r.label,
    `${num(r.m.reqPerSec)} ${r.unit}`,
    ms(r.m.p50),
    ms(r.m.p99),
    ratio(r.vsNode),
    ratio(r.vsNodeCpu),
    ratio(r.vsExpress),
    targetText(r.target),
    targetText(r.nodeTarget),
    r.cpuMsPerReq === undefined ? "–" : r.cpuMsPerReq.toFixed(2),
    num(r.rssMiB),
    errorsText(r.m),
  ];
}

/** Above this, other processes' CPU use during a scenario is called out next to the table. */
const OUTSIDE_LOAD_WARN_CORES = 0.15;

function allNotes(table: RunTable): string[] {
  const disturbed = table.rows
    .filter((r) => (r.outsideCores ?? 0) > OUTSIDE_LOAD_WARN_CORES)
    .map((r) => `${r.label} (${r.outsideCores!.toFixed(2)})`);
  return [
    ...table.notes,
    ...(disturbed.length > 0 ? [`other processes on the machine took CPU during (cores): ${disturbed.join(", ")}; those rows are skewed`] : []),
  ];
}

export function textTable(table: RunTable): string {
  const rows = [HEADERS, ...table.rows.map(cells)];
  const widths = HEADERS.map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  const out = [`== ${table.title} ==`, line(rows[0]), widths.map((w) => "-".repeat(w)).join("  ")];
  for (const r of rows.slice(1)) out.push(line(r));
  for (const n of allNotes(table)) out.push(`  note: ${n}`);
  return out.join("\n");
}

export function markdownTable(table: RunTable): string {
  const esc = (s: string) => s.replace(/\|/g, "\\|");
  const out = [`### ${table.title}`, "", `| ${HEADERS.join(" | ")} |`, `|${HEADERS.map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`];
  for (const r of table.rows) out.push(`| ${cells(r).map(esc).join(" | ")} |`);
  const notes = allNotes(table);
  if (notes.length > 0) {
    out.push("");
    for (const n of notes) out.push(`- ${n}`);
  }
  return out.join("\n");
}

/** A plain table for the extra sections (peers, scale, capacity): Markdown and terminal text. */
export function simpleTable(headers: string[], rows: string[][]): { markdown: string; text: string } {
  const esc = (c: string) => c.replace(/\|/g, "\\|");
  const markdown = [
    `| ${headers.map(esc).join(" | ")} |`,
    `|${headers.map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`,
    ...rows.map((r) => `| ${r.map(esc).join(" | ")} |`),
  ].join("\n");
  const all = [headers, ...rows];
  const widths = headers.map((_, i) => Math.max(...all.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  const text = [line(headers), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
  return { markdown, text };
}

export function fmt(n: number | undefined, digits = 0): string {
  return num(n, digits);
}

/** The cells of a row in the extra sections' tables, which have no baseline or target columns. */
export function rowCells(r: Row): string[] {
  return [r.label, `${fmt(r.m.reqPerSec)} ${r.unit}`, String(r.m.p50), String(r.m.p99), r.cpuMsPerReq?.toFixed(2) ?? "–", fmt(r.rssMiB), String(r.m.non2xx + r.m.errors)];
}

/** Prints an extra section (peers, scale, capacity) to the terminal and returns its Markdown. */
export function section(title: string, intro: string[], body: { markdown: string; text: string }, notes: string[] = []): string {
  process.stdout.write(`\n== ${title} ==\n${body.text}\n${notes.map((n) => `  note: ${n}`).join("\n")}\n`);
  return [`### ${title}`, "", ...intro, ...(intro.length > 0 ? [""] : []), body.markdown, "", ...notes.map((n) => `- ${n}`)].join("\n");
}

export function skippedSection(title: string, reason: string): string {
  return section(title, [], { markdown: `skipped: ${reason}`, text: `skipped: ${reason}` });
}

export function loadAverage(): number[] {
  return os.loadavg().map((n) => Math.round(n * 100) / 100);
}

function cpuModel(): string {
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync("/proc/cpuinfo", "utf8"));
    if (m) return m[1].trim();
  } catch {
    // not Linux
  }
  return os.cpus()[0]?.model ?? "unknown";
}

export function writeReport(ctx: Context): void {
  const { flags } = ctx;
  const elapsed = Math.round((Date.now() - ctx.startedAt) / 1000);
  const lines = [
    "# Benchmark results",
    "",
    `- Date: ${new Date().toISOString()}`,
    `- Node ${process.version}, ${os.platform()} ${os.release()}`,
    `- CPU: ${cpuModel()} × ${os.cpus().length} (load generator, simulator and service share these cores)`,
    `- Flags: --duration ${flags.durationSec} --warmup ${flags.warmupSec} --connections ${flags.connections} --room-concurrency ${flags.roomConcurrency} --room-players ${flags.roomPlayers}${flags.anchor ? "" : " --no-anchor"} --runs ${flags.runs.join(",")} --only ${flags.only.join(",")}${flags.trafficSteps ? ` --traffic-steps ${flags.trafficSteps.join(",")}` : ""}${flags.build ? "" : " --no-build"}${flags.profile ? " --profile" : ""}`,
    `- Service: ${flags.build ? "compiled (tsconfig.build.json) and run with node" : "run from src/ through tsx"}, one process, NODE_ENV=development, LOG_LEVEL=warn, rate limits off, standalone simulator as the platforms`,
    `- Whole run took ${elapsed} s; load average (1, 5, 15 min) at start ${ctx.loadAtStart.join(" ")}, at end ${loadAverage().join(" ")}`,
    "",
    "Rates are autocannon's mean of per-second samples (join+leave completions per second for rooms); latencies are per request (per join+leave). \"CPU ms/req\" is the server process's CPU time (user + system, from /proc) during the scenario divided by the requests it completed: unlike the rates, it does not depend on how much CPU the load generator takes from the same cores.",
    flags.anchor
      ? "Room loops: each loop owns a distinct player's token; one more idle client stays in the lobby throughout, so it is never disposed and re-created mid-run."
      : "Room loops: each loop owns a distinct player's token; no idle client, so the lobby is disposed and re-created whenever it empties.",
    "The baseline rows are the node:http and Express hello servers measured just before each service run; × node is against that node:http row. Each route with a target is judged against the Express hello measured again right before it (its CPU is named in the target column; × Express is the rate ratio to that same measurement): on this shared machine one process's CPU per request drifts by up to a third over a few minutes, so a baseline from minutes earlier would judge the drift, not the route. Route targets (access token ≥ 0.85, /users/me ≥ 0.8, returning login ≥ 0.55, new-player login ≥ 0.33 × Express hello) are judged on CPU per request (Express hello's CPU ms/req ÷ the route's), which other processes on the machine skew far less than rates. Every route is also shown against the bare node:http hello of the same run: × node on rates, × node CPU on CPU per request (the hello's ÷ the route's); the node targets of issue 56 (returning login ≥ 0.10, new-player login ≥ 0.065, /users/me ≥ 0.20, access token ≥ 0.22 × the node:http hello) are judged on rates, as the issue states them. Room join with auth ≥ 0.9 × without is judged on rates (joins/s). The peers' targets are on rates, as in the issue; the scale and capacity targets are in their sections.",
    flags.profile ? "\n**Profiled run: the service ran under --cpu-prof, so its numbers are lower than normal.**" : "",
    "",
    ...ctx.tables.flatMap((t) => [markdownTable(t), ""]),
    ...ctx.sections.flatMap((sec) => [sec, ""]),
    ...(ctx.profiles.length > 0 ? ["## CPU profiles", "", ...ctx.profiles.flatMap((p) => [p, ""])] : []),
  ];
  fs.mkdirSync(path.dirname(flags.out), { recursive: true });
  const tmpFile = `${flags.out}.tmp`;
  fs.writeFileSync(tmpFile, `${lines.join("\n").replace(/\n{3,}/g, "\n\n").trimEnd()}\n`);
  fs.renameSync(tmpFile, flags.out);
  log(`wrote ${path.relative(process.cwd(), flags.out)}`);
}
