/**
 * A FerretDB of a test's own, on its own port and folder, for tests that stop and restart the
 * MongoDB server (the shared one on 27017 is never stopped). Uses the binary that
 * scripts/test-services.sh builds, found by the same rule (version and a hash of tools/ferretdb/).
 */
import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "./app-harness";
import { createTestDatabase, type TestDatabase } from "./postgres";

const ROOT = path.resolve(__dirname, "../..");
const TOOL = path.join(ROOT, "tools/ferretdb");

/** The built binary, or undefined when scripts/test-services.sh has not built it on this machine. */
export function ferretdbBinary(): string | undefined {
  const version = /github\.com\/FerretDB\/FerretDB (v[\w.]+)/.exec(fs.readFileSync(path.join(TOOL, "go.mod"), "utf8"))?.[1];
  const goFiles = fs.readdirSync(TOOL).filter((f) => f.endsWith(".go")).sort();
  const hash = crypto.createHash("sha256");
  for (const file of ["go.mod", "go.sum", ...goFiles]) hash.update(fs.readFileSync(path.join(TOOL, file)));
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache");
  const binary = path.join(cache, "minigame-server", `ferretdb-${version}-${hash.digest("hex").slice(0, 12)}`);
  return fs.existsSync(binary) ? binary : undefined;
}

export type FerretdbHandler = "sqlite" | "postgresql";

/** The PostgreSQL server a FerretDB on the PostgreSQL handler keeps its data in (a database of its own). */
const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export interface OwnFerretdb {
  port: number;
  handler: FerretdbHandler;
  /** `mongodb://…/<database>?directConnection=true` on this server. */
  url(database: string): string;
  /** Stops the server; its data stays for the next start. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes its data. */
  remove(): Promise<void>;
}

/**
 * A FerretDB on SQLite (a temp folder), or on PostgreSQL (a database of its own on the shared
 * server, dropped by `remove()`): the handler changes which filters FerretDB pushes down to SQL.
 */
export async function startOwnFerretdb(binary: string, handler: FerretdbHandler = "sqlite"): Promise<OwnFerretdb> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-ferretdb-"));
  const pg: TestDatabase | undefined = handler === "postgresql" ? await createTestDatabase(POSTGRES_URL) : undefined;
  const storage = pg ? ["--postgresql-url", pg.url] : ["--sqlite-dir", dir];
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(binary, ["--listen-addr", `127.0.0.1:${port}`, ...storage], { stdio: "ignore" });
    const deadline = Date.now() + 10_000;
    for (;;) {
      const ping = spawn(binary, ["ping", `127.0.0.1:${port}`], { stdio: "ignore" });
      if ((await new Promise((resolve) => ping.once("exit", resolve))) === 0) return;
      if (Date.now() > deadline) throw new Error(`FerretDB did not answer on ${port} within 10 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGKILL");
    await exited;
  };
  await start();
  const remove = async () => {
    await stop();
    fs.rmSync(dir, { recursive: true, force: true });
    await pg?.drop();
  };
  const url = (database: string) => `mongodb://127.0.0.1:${port}/${database}?directConnection=true`;
  return { port, handler, url, start, stop, remove };
}
