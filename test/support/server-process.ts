/**
 * The server as `npm start` runs it (src/server/index.ts, the same esbuild transform tsx applies, compiled
 * beforehand: compiled-source.ts), in a child process of its own, so a test observes what only a real
 * process shows: whether it exits, how long shutdown takes, and what it writes to stdout and stderr.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { freePort } from "./app-harness";
import { compiledEntry } from "./compiled-source";

const ROOT = path.resolve(__dirname, "../..");

export interface ServerProcess {
  baseUrl: string;
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Null while running. */
  exit(): { code: number | null; signal: NodeJS.Signals | null; at: number } | null;
  exited: Promise<void>;
  stop(): Promise<void>;
}

/** The servers' "unhandled error" log lines (a 500's cause), for a failure's message. */
export function unhandledErrors(servers: ServerProcess[]): string {
  const lines = servers.flatMap((server) => server.output().split("\n").filter((line) => line.includes('"unhandled error"')));
  return lines.length === 0 ? "" : `\nunhandled errors in the servers' logs:\n${lines.slice(0, 5).join("\n")}`;
}

export async function startServerProcess(env: Record<string, string>, readyTimeoutMs = 30_000): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--enable-source-maps", compiledEntry("src/server/index.ts")], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), ...(process.env.TEST_HTTP_HOT_FRONT ? { HTTP_HOT_FRONT: process.env.TEST_HTTP_HOT_FRONT } : {}), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  let exit: ReturnType<ServerProcess["exit"]> = null;
  const exited = new Promise<void>((resolve) =>
    child.once("exit", (code, signal) => {
      exit = { code, signal, at: Date.now() };
      resolve();
    }),
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  const server: ServerProcess = {
    baseUrl,
    child,
    output: () => output,
    exit: () => exit,
    exited,
    stop: async () => {
      if (!exit) child.kill("SIGKILL");
      await exited;
    },
  };
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (exit) throw new Error(`the server exited while starting:\n${output}`);
    const ready = await fetch(`${baseUrl}/readyz`).then((r) => r.status === 200, () => false);
    if (ready) return server;
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`the server was not ready within ${readyTimeoutMs} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `count` server processes on the same settings, started at once (each migrates, waits for the others' lock, and listens on its own port). */
export function startServerProcesses(env: Record<string, string>, count: number): Promise<ServerProcess[]> {
  return Promise.all(Array.from({ length: count }, () => startServerProcess(env)));
}
