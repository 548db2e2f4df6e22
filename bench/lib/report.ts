/** Result rows → a plain-text table for the terminal and a Markdown table for bench/results/latest.md. */
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
  vsExpress?: number;
  target?: Target;
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

const HEADERS = ["Scenario", "rate", "p50 ms", "p99 ms", "× node", "× Express", "target", "CPU ms/req", "RSS MiB", "errors"];

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
    ratio(r.vsExpress),
    targetText(r.target),
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
