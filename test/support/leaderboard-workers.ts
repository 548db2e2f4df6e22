/** Starts leaderboard-worker.ts processes and talks to them (see there). */
import { fork, type ChildProcess } from "node:child_process";
import type { WorkerCommand, WorkerSettings } from "./leaderboard-worker";
import { compiledEntry } from "./compiled-source";

export interface LeaderboardWorker {
  child: ChildProcess;
  call<T = unknown>(command: WorkerCommand): Promise<T>;
  /** Resolves when the worker reports it stopped mid-payout. */
  paused: Promise<number>;
  kill(): Promise<void>;
}

export async function startLeaderboardWorker(settings: WorkerSettings): Promise<LeaderboardWorker> {
  const child = fork(compiledEntry("test/support/leaderboard-worker.ts"), [JSON.stringify(settings)], { execArgv: ["--enable-source-maps"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let next = 0;
  let onPaused: (grants: number) => void = () => undefined;
  const paused = new Promise<number>((resolve) => (onPaused = resolve));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const ready = new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`worker exited (${code}) before it was ready`)));
    child.on("message", (m: { event?: string; grants?: number; id?: number; ok?: boolean; result?: unknown; error?: string }) => {
      if (m.event === "ready") resolve();
      else if (m.event === "paused") onPaused(m.grants!);
      else if (m.id !== undefined) {
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (m.ok) p?.resolve(m.result);
        else p?.reject(new Error(m.error));
      }
    });
  });
  child.once("exit", () => {
    for (const p of pending.values()) p.reject(new Error("worker exited"));
    pending.clear();
  });
  await ready;
  return {
    child,
    paused,
    call: <T>(command: WorkerCommand) =>
      new Promise<T>((resolve, reject) => {
        const id = next++;
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ id, command });
      }),
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}
