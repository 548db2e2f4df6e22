/**
 * Room join+leave load: `concurrency` workers, each looping joinOrCreate → leave with its own
 * options (its own player's token), until the time or the iteration cap is reached.
 */
import { Client } from "@colyseus/sdk";
import type { Measurement } from "./http-load";

export interface RoomLoad {
  baseUrl: string;
  roomName: string;
  /** One entry per worker: the join options that worker sends (e.g. its own accessToken). */
  workerOptions: Record<string, unknown>[];
  durationSec: number;
  maxIterations: number;
  /** Give up on one join+leave after this long. */
  iterationTimeoutMs?: number;
}

let stopRequested = false;

/** Makes the loop in progress finish its current iterations and return (Ctrl-C). */
export function stopRoomLoad(): void {
  stopRequested = true;
}

/**
 * Joins one idle client that stays for the whole scenario, so the room never empties: otherwise
 * every moment the loops all happen to be out, the room is disposed and the next joins race to
 * create a new one (with Redis, Colyseus then makes joiners wait up to ~1.1 s for the creator).
 * Returns the function that makes it leave.
 */
export async function joinAnchor(baseUrl: string, roomName: string, options: Record<string, unknown>): Promise<() => Promise<void>> {
  const room = await new Client(baseUrl).joinOrCreate(roomName, { ...options });
  return async () => {
    await withTimeout(room.leave(true), 5000).catch(() => undefined);
  };
}

export async function runRoomLoad(load: RoomLoad): Promise<Measurement & { firstError?: string }> {
  stopRequested = false;
  const latencies: number[] = [];
  const statusCounts: Record<string, number> = {};
  let errors = 0;
  let timeouts = 0;
  let started = 0;
  let firstError: string | undefined;
  const t0 = performance.now();
  const deadline = t0 + load.durationSec * 1000;
  const iterationTimeoutMs = load.iterationTimeoutMs ?? 10_000;
  // Per-second completion counts, to report the same "mean of per-second samples" as autocannon.
  const perSecond: number[] = [];

  const worker = async (options: Record<string, unknown>) => {
    const client = new Client(load.baseUrl);
    let consecutiveErrors = 0;
    while (!stopRequested && performance.now() < deadline && started < load.maxIterations) {
      started++;
      const begin = performance.now();
      try {
        await withTimeout(
          (async () => {
            const room = await client.joinOrCreate(load.roomName, { ...options });
            await room.leave(true);
          })(),
          iterationTimeoutMs,
        );
        const end = performance.now();
        latencies.push(end - begin);
        const second = Math.floor((end - t0) / 1000);
        perSecond[second] = (perSecond[second] ?? 0) + 1;
        consecutiveErrors = 0;
      } catch (err) {
        errors++;
        if (err instanceof TimeoutError) timeouts++;
        const code = errorCode(err);
        statusCounts[code] = (statusCounts[code] ?? 0) + 1;
        firstError ??= err instanceof Error ? err.message : String(err);
        // A broken setup (revoked token, server down) should not spin: back off, then give up.
        if (++consecutiveErrors >= 20) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };

  await Promise.all(load.workerOptions.map((o) => worker(o)));
  const elapsedSec = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  const fullSeconds = Math.max(1, Math.floor(elapsedSec));
  let sum = 0;
  for (let i = 0; i < fullSeconds; i++) sum += perSecond[i] ?? 0;
  return {
    reqPerSec: sum / fullSeconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    ok: latencies.length,
    non2xx: 0,
    errors,
    timeouts,
    durationSec: elapsedSec,
    statusCounts,
    firstError,
  };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

class TimeoutError extends Error {}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`join+leave took over ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function errorCode(err: unknown): string {
  if (err instanceof TimeoutError) return "timeout";
  if (err && typeof err === "object") {
    const e = err as { code?: unknown; message?: unknown };
    if (e.code !== undefined) return `${String(e.code)}${typeof e.message === "string" ? ` ${e.message}` : ""}`.slice(0, 60);
  }
  return "error";
}
