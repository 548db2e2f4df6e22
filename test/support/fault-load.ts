/**
 * A steady load of logins and authenticated reads on a server process, and the measure of one
 * fault under it: how soon the first request fails after the fault, and how soon requests succeed
 * again after the restore. Shared by the fault tests of each backing service.
 */
import assert from "node:assert/strict";
import type { ServerProcess } from "./server-process";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A request still open after this counts as hung. */
const REQUEST_LIMIT_MS = 8000;
/** How long a fault is held once the first 503 was seen, so requests keep failing into it. */
const HOLD_MS = 600;

export interface Sample {
  started: number;
  ended: number;
  status: number;
  body: any;
}

export interface FaultTiming {
  firstFailureMs: number;
  recoveryMs: number;
}

/** Workers that keep sending requests until stopped, recording every outcome. */
export class Load {
  readonly samples: Sample[] = [];
  private running = true;
  private readonly workers: Promise<void>[] = [];
  private sequence = 0;

  constructor(
    private readonly baseUrl: string,
    bearer: string,
    readers: number,
    loggers: number,
  ) {
    for (let i = 0; i < readers; i++) this.workers.push(this.loop(() => this.send("/api/users/me", { authorization: `Bearer ${bearer}` })));
    // Each login is a new player, so it writes a user and its identity in one transaction.
    const run = Date.now().toString(36);
    for (let i = 0; i < loggers; i++) this.workers.push(this.loop(() => this.send(`/api/minigame/wechat/login?jsCode=fault${run}x${i}n${this.sequence++}.1`)));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }

  private async loop(request: () => Promise<void>): Promise<void> {
    while (this.running) {
      await request();
      await sleep(5);
    }
  }

  private async send(path: string, headers: Record<string, string> = {}): Promise<void> {
    const started = Date.now();
    let status = 0;
    let body: unknown;
    try {
      const res = await fetch(`${this.baseUrl}${path}`, { headers, signal: AbortSignal.timeout(REQUEST_LIMIT_MS) });
      status = res.status;
      body = await res.json().catch(() => undefined);
    } catch (err) {
      body = String((err as Error)?.name ?? err);
    }
    this.samples.push({ started, ended: Date.now(), status, body });
  }
}

export async function waitFor<T>(find: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

/** Applies a fault under load, holds it, restores, and measures the first 503 and the recovery. */
export async function measureFault(load: Load, server: ServerProcess, fault: () => void, restore: () => void, what: string): Promise<FaultTiming> {
  const faultAt = Date.now();
  fault();
  const firstFailure = await waitFor(() => load.samples.find((s) => s.ended >= faultAt && s.status !== 200), 15_000, `the first failure (${what})`);
  await sleep(HOLD_MS);
  assert.equal(server.exit(), null, `the server exited during ${what}:\n${server.output().slice(-4000)}`);
  const restoredAt = Date.now();
  restore();
  const recovered = await waitFor(() => load.samples.find((s) => s.started >= restoredAt && s.status === 200), 15_000, `recovery (${what})`);
  // Recovered for good, not by one lucky request: a fresh round all succeeds.
  const settledAt = Date.now() + 300;
  await waitFor(() => (load.samples.filter((s) => s.started >= settledAt).length >= 10 ? true : undefined), 10_000, `requests after ${what}`);
  const after = load.samples.filter((s) => s.started >= settledAt);
  assert.deepEqual(after.filter((s) => s.status !== 200), [], `requests still failed after the recovery from ${what}`);
  return { firstFailureMs: firstFailure.ended - faultAt, recoveryMs: recovered.ended - restoredAt };
}

/** Logs a reader in on the server and starts the load with its token, once it is answering. */
export async function startReaderLoad(server: ServerProcess, readerPrefix: string): Promise<Load> {
  const login = await fetch(`${server.baseUrl}/api/minigame/wechat/login?jsCode=${readerPrefix}${Date.now()}.1`);
  assert.equal(login.status, 200);
  const bearer = ((await login.json()) as { data: { token: string } }).data.token;
  const load = new Load(server.baseUrl, bearer, 4, 2);
  await waitFor(() => (load.samples.filter((s) => s.status === 200).length >= 20 ? true : undefined), 15_000, "the load to run");
  return load;
}

/** The measured timings, printed after the suite whatever its outcome. */
export function printFaultTimings(timings: Record<string, FaultTiming>): void {
  if (Object.keys(timings).length === 0) return;
  const lines = Object.entries(timings).map(([name, t]) => `      ${name}: first 503 after ${t.firstFailureMs} ms, recovered ${t.recoveryMs} ms after the restore`);
  console.log(`    fault timings:\n${lines.join("\n")}`);
}
