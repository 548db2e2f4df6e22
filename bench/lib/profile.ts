/** Reads a V8 .cpuprofile (from `node --cpu-prof`) and ranks functions by self time. */
import fs from "node:fs";
import path from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface SelfTimeRow {
  name: string;
  where: string;
  selfMs: number;
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  functions: SelfTimeRow[];
  /** Self time grouped by package (node_modules/<pkg>), project file area, or "(node internals)". */
  groups: SelfTimeRow[];
  /** Project functions (src/, rooms/) by inclusive time: their own time plus everything they called. */
  projectInclusive: SelfTimeRow[];
}

export function summarizeProfile(file: string, root = process.cwd(), top = 25): ProfileSummary {
  const profile = JSON.parse(fs.readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    // timeDeltas[i] is the time before sample i; attribute the gap after a sample to that sample.
    const dt = deltas[i + 1] ?? 0;
    selfUs.set(samples[i], (selfUs.get(samples[i]) ?? 0) + Math.max(0, dt));
  }
  let totalUs = 0;
  const fnTotals = new Map<string, { name: string; where: string; us: number }>();
  const groupTotals = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    totalUs += us;
    const { functionName, url, lineNumber } = node.callFrame;
    const name = functionName || "(anonymous)";
    const where = url ? `${shortUrl(url, root)}:${lineNumber + 1}` : "";
    const key = `${name}@${where}`;
    const row = fnTotals.get(key) ?? { name, where, us: 0 };
    row.us += us;
    fnTotals.set(key, row);
    const group = groupOf(name, url, root);
    groupTotals.set(group, (groupTotals.get(group) ?? 0) + us);
  }
  const toRow = (name: string, where: string, us: number): SelfTimeRow => ({
    name,
    where,
    selfMs: us / 1000,
    share: totalUs > 0 ? us / totalUs : 0,
  });
  // Inclusive time per project function: walk the tree, counting a function once per path even
  // when it recurses, so a caller's time is never double counted.
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map<string, { name: string; where: string; us: number }>();
  for (const [id, us] of selfUs) {
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const node = byId.get(cur);
      if (!node) break;
      const { functionName, url, lineNumber } = node.callFrame;
      if (!url || !isProjectCode(shortUrl(url, root))) continue;
      const name = functionName || "(anonymous)";
      const where = `${shortUrl(url, root)}:${lineNumber + 1}`;
      const key = `${name}@${where}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const row = inclusive.get(key) ?? { name, where, us: 0 };
      row.us += us;
      inclusive.set(key, row);
    }
  }
  return {
    projectInclusive: [...inclusive.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((r) => toRow(r.name, r.where, r.us)),
    totalMs: totalUs / 1000,
    functions: [...fnTotals.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((r) => toRow(r.name, r.where, r.us)),
    groups: [...groupTotals.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([g, us]) => toRow(g, "", us)),
  };
}

function shortUrl(url: string, root: string): string {
  let p = url.startsWith("file://") ? decodeURIComponent(url.slice("file://".length)) : url;
  if (path.isAbsolute(p)) p = path.relative(root, p);
  const nm = p.lastIndexOf("node_modules/");
  return nm >= 0 ? p.slice(nm) : p;
}

function isProjectCode(p: string): boolean {
  return !p.includes("node_modules/") && /(^|\/)(src|rooms)\//.test(p);
}

function groupOf(name: string, url: string, root: string): string {
  if (!url) return name.startsWith("(") ? name : "(native/V8)";
  if (url.startsWith("node:")) return "(node internals)";
  const p = shortUrl(url, root);
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(p);
  if (nm) return nm[1];
  // Project code: src/<area> or rooms.
  const project = /(src\/[^/]+|rooms)\//.exec(p);
  return project ? project[1] : p;
}

export function formatProfile(summary: ProfileSummary, top = 20): string {
  const lines = [`total sampled: ${(summary.totalMs / 1000).toFixed(1)} s`, "", "self time by function:"];
  for (const r of summary.functions.slice(0, top)) {
    lines.push(`  ${(r.share * 100).toFixed(1).padStart(5)}%  ${r.selfMs.toFixed(0).padStart(7)} ms  ${r.name}  ${r.where}`);
  }
  lines.push("", "self time by package / area:");
  for (const r of summary.groups.slice(0, 15)) {
    lines.push(`  ${(r.share * 100).toFixed(1).padStart(5)}%  ${r.selfMs.toFixed(0).padStart(7)} ms  ${r.name}`);
  }
  lines.push("", "project functions by inclusive time (self + callees):");
  for (const r of summary.projectInclusive.slice(0, 15)) {
    lines.push(`  ${(r.share * 100).toFixed(1).padStart(5)}%  ${r.selfMs.toFixed(0).padStart(7)} ms  ${r.name}  ${r.where}`);
  }
  return lines.join("\n");
}
