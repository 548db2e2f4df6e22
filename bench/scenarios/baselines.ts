/** The node:http and Express hello servers every service run is compared with. */
import path from "node:path";
import { ROOT, TSX_IMPORT, type Context } from "../lib/context";
import { measureHttp } from "../lib/measure";
import { freePort, startNode, waitForHttp, type Child } from "../lib/procs";
import type { Row } from "../lib/report";

export interface Baselines {
  node: Row;
  express: Row;
  /**
   * Measures the Express hello again, right before a route: this machine's CPU per request drifts
   * by up to a third over minutes (shared host), so a route is judged against the hello measured
   * next to it, not one from minutes earlier.
   */
  expressAgain(): Promise<Row>;
  stop(): Promise<void>;
}

export async function measureBaselines(ctx: Context): Promise<Baselines> {
  const nodeHello = await startHello("node-hello", "node-hello.ts");
  const expressHello = await startHello("express-hello", "express-hello.ts");
  const node = await measureHttp(ctx, "node:http hello (baseline 1)", nodeHello.child, { baseUrl: nodeHello.url, path: "/" });
  const express = await measureHttp(ctx, "Express 5 hello (baseline 2)", expressHello.child, { baseUrl: expressHello.url, path: "/" });
  await nodeHello.child.stop();
  node.vsNode = 1;
  node.vsExpress = node.m.reqPerSec / express.m.reqPerSec;
  express.vsNode = express.m.reqPerSec / node.m.reqPerSec;
  node.vsNodeCpu = 1;
  express.vsNodeCpu = (node.cpuMsPerReq ?? NaN) / (express.cpuMsPerReq ?? NaN);
  express.vsExpress = 1;
  return {
    node,
    express,
    expressAgain: () => measureHttp(ctx, "Express 5 hello (paired with the next route)", expressHello.child, { baseUrl: expressHello.url, path: "/" }),
    stop: () => expressHello.child.stop(),
  };
}

async function startHello(name: string, file: string): Promise<{ child: Child; url: string }> {
  const port = await freePort();
  const child = startNode({
    name,
    args: [...TSX_IMPORT, path.join(ROOT, "bench/servers", file)],
    env: { PORT: String(port), NODE_ENV: "development" },
    cwd: ROOT,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(child, `${url}/`);
  return { child, url };
}
