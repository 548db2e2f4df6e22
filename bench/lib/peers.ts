/**
 * The peers a studio would pick instead: @colyseus/auth 0.18 and better-auth, each started as its
 * own process from bench/peers/, which has its own package.json and lockfile (they need other
 * versions than the server). Installed there with `npm ci` on first use.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort, startNode, waitForHttp, type Child } from "./procs";

export interface Peer {
  id: "colyseus-auth" | "better-auth";
  label: string;
  /** The anonymous sign-in request. */
  path: string;
  body: string;
  headers: Record<string, string>;
}

export const PEERS: Peer[] = [
  {
    id: "colyseus-auth",
    label: "@colyseus/auth 0.18 anonymous sign-in (KeyObject secret, in-memory users)",
    path: "/auth/anonymous",
    body: "{}",
    headers: { "content-type": "application/json" },
  },
  {
    id: "better-auth",
    label: "better-auth anonymous sign-in (SQLite)",
    path: "/api/auth/sign-in/anonymous",
    body: "{}",
    headers: { "content-type": "application/json" },
  },
];

/** `npm ci` in bench/peers unless its node_modules is already there (bounded: 10 minutes). */
export function ensurePeersInstalled(peersDir: string, log: (msg: string) => void): void {
  if (fs.existsSync(path.join(peersDir, "node_modules", "better-auth")) && fs.existsSync(path.join(peersDir, "node_modules", "@colyseus", "auth"))) {
    return;
  }
  log("installing the peers (npm ci in bench/peers, first run only)…");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = spawnSync(npm, ["ci", "--no-audit", "--no-fund"], { cwd: peersDir, encoding: "utf8", timeout: 600_000 });
  if (result.status !== 0) throw new Error(`npm ci in ${peersDir} failed:\n${result.stdout}${result.stderr}`);
}

/** Starts one peer on a free port and waits until it answers. */
export async function startPeer(peersDir: string, peer: Peer): Promise<{ child: Child; url: string; cleanup: () => void }> {
  const port = await freePort();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `mgl-bench-${peer.id}-`));
  const child = startNode({
    name: peer.id,
    args: [path.join(peersDir, `${peer.id}-server.mjs`)],
    env: { PORT: String(port), NODE_ENV: "production", BENCH_DB_FILE: path.join(tmp, "auth.sqlite") },
    cwd: peersDir,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(child, `${url}/`, 60_000);
  return { child, url, cleanup: () => fs.rmSync(tmp, { recursive: true, force: true }) };
}
