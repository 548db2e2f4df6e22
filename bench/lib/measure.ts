/** One measured HTTP load against one process: its rate and latency, and the CPU and memory it cost that process. */
import { log, type Context } from "./context";
import { runHttpLoad, type HttpLoad } from "./http-load";
import { isAborting } from "./lifecycle";
import { cpuTicks, meterOutsideLoad, rssMiB, waitUntilIdle, type Child, type OutsideLoad } from "./procs";
import type { Row } from "./report";

/** Warm-up (not recorded), then the measured load, then the target's RSS. */
export async function measureHttp(
  ctx: Context,
  label: string,
  target: Child,
  load: Pick<HttpLoad, "baseUrl" | "path" | "headers" | "method" | "body">,
): Promise<Row> {
  const { flags } = ctx;
  if (isAborting()) throw new Error("aborted");
  await waitUntilIdle(target.pid);
  const common = { ...load, connections: flags.connections, maxRequests: flags.maxRequests };
  if (flags.warmupSec > 0) await runHttpLoad({ ...common, durationSec: flags.warmupSec });
  log(`measuring ${label} (${flags.durationSec} s, ${flags.connections} connections)`);
  const ticks = cpuTicks(target.pid);
  const outside = meterOutsideLoad();
  const m = await runHttpLoad({ ...common, durationSec: flags.durationSec });
  const row: Row = {
    label,
    unit: "req/s",
    m,
    rssMiB: rssMiB(target.pid),
    cpuMsPerReq: cpuPerRequest(target.pid, ticks, m.ok + m.non2xx),
    ...outsideFields(outside()),
  };
  logResult(row);
  return row;
}

/** Server CPU (user + system) per completed request since `before`, in ms. */
export function cpuPerRequest(pid: number, before: number | undefined, completed: number): number | undefined {
  const after = cpuTicks(pid);
  if (before === undefined || after === undefined || completed === 0) return undefined;
  return ((after - before) * 10) / completed;
}

export function outsideFields(load: OutsideLoad | undefined): Pick<Row, "outsideCores" | "databaseCores"> {
  return load ? { outsideCores: load.otherCores, databaseCores: load.databaseCores } : {};
}

export function logResult(row: Row): void {
  const r = (n: number) => Math.round(n * 10) / 10;
  const outside =
    row.outsideCores === undefined
      ? ""
      : `; other processes ${row.outsideCores.toFixed(2)} cores, Redis+PostgreSQL servers ${row.databaseCores?.toFixed(2)} cores`;
  log(`  ${Math.round(row.m.reqPerSec)} ${row.unit}, p50 ${r(row.m.p50)} ms, p99 ${r(row.m.p99)} ms, server CPU ${row.cpuMsPerReq?.toFixed(2) ?? "?"} ms/req${outside}`);
}
