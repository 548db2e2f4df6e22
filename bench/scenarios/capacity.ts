/** The capacity step: how many idle authenticated lobby clients one process holds, and its idle RSS. */
import path from "node:path";
import { rampIdleClients, type CapacityStep } from "../lib/capacity";
import { log, TSX_IMPORT, type Context } from "../lib/context";
import { isAborting, tempDir } from "../lib/lifecycle";
import { rssMiB, sleep } from "../lib/procs";
import { fmt, section, simpleTable, targetText } from "../lib/report";
import { startService } from "../lib/service";

export const CAPACITY = { clients: 10_000, rssMiB: 1024, idleRssMiB: 150, joinP99Ms: 200, step: 1000, workers: 4, joinConcurrency: 2, roomSize: 50 } as const;

/** Idle RSS, then idle authenticated lobby clients ramped in one process until join p99 > 200 ms or 10,000. */
export async function capacityStep(ctx: Context): Promise<string> {
  const title = "Capacity: idle authenticated lobby clients in one process (embedded)";
  const tmp = tempDir("mgl-bench-capacity-");
  const { child, base } = await startService(
    ctx,
    "service (capacity)",
    // NORMAL: 10,000 new players are only the set-up here, not what is measured.
    { SQLITE_PATH: path.join(tmp, "users.sqlite"), SQLITE_SYNCHRONOUS: "NORMAL", LOBBY_MAX_CLIENTS: String(CAPACITY.roomSize) },
    tmp,
    [],
  );
  await sleep(3000);
  const idleRss = rssMiB(child.pid) ?? NaN;
  log(`capacity: idle RSS after boot ${idleRss.toFixed(0)} MiB; ramping lobby clients…`);
  const steps: CapacityStep[] = await rampIdleClients({
    baseUrl: base,
    service: child,
    tsxImport: TSX_IMPORT,
    workers: CAPACITY.workers,
    stepClients: CAPACITY.step,
    maxClients: ctx.flags.capacityClients,
    joinP99LimitMs: CAPACITY.joinP99Ms,
    joinConcurrency: CAPACITY.joinConcurrency,
    tag: ctx.tag,
    log,
    aborted: isAborting,
  });
  await child.stop();
  const table = simpleTable(
    ["Connected clients", "joins/s (step)", "join p50 ms", "join p99 ms", "CPU ms per join", "idle CPU (% of a core)", "RSS MiB", "errors"],
    steps.map((s) => [fmt(s.clients), fmt(s.joinsPerSec), s.p50.toFixed(1), s.p99.toFixed(1), s.cpuMsPerClient.toFixed(2), (s.idleCpuShare * 100).toFixed(1), fmt(s.rssMiB), String(s.errors)]),
  );
  const last = steps.at(-1);
  const held = steps.filter((s) => s.p99 <= CAPACITY.joinP99Ms).at(-1)?.clients ?? 0;
  const summary = simpleTable(
    ["Figure", "value", "target"],
    [
      ["RSS idle, after boot", `${idleRss.toFixed(0)} MiB`, targetText({ ratio: idleRss, max: CAPACITY.idleRssMiB, against: "MiB" })],
      ["clients held with join p99 ≤ 200 ms", fmt(held), targetText({ ratio: held, min: CAPACITY.clients, against: "clients" })],
      ["RSS with the most clients", last ? `${fmt(last.rssMiB)} MiB at ${fmt(last.clients)} clients` : "–", last ? targetText({ ratio: last.rssMiB, max: CAPACITY.rssMiB, against: "MiB" }) : "–"],
    ],
  );
  const firstError = steps.find((s) => s.firstError)?.firstError;
  return section(
    title,
    [
      `Distinct players (one per client), ${CAPACITY.step.toLocaleString("en-US")} more per step, spread over ${CAPACITY.workers} generator processes: all of a step's players log in first (8 at a time per generator), then they join (${CAPACITY.joinConcurrency} joins in flight per generator, ${CAPACITY.workers * CAPACITY.joinConcurrency} in all), and stay. Lobbies of ${CAPACITY.roomSize} (LOBBY_MAX_CLIENTS), rate limits off; join latency and CPU per join leave the logins out. After each step the clients sit idle for 4 s: "idle CPU" is what holding them costs.`,
    ],
    { markdown: `${summary.markdown}\n\n${table.markdown}`, text: `${summary.text}\n\n${table.text}` },
    firstError ? [`first failure: ${firstError}`] : [],
  );
}
