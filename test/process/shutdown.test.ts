/**
 * Shutdown of the real process (src/server/index.ts as `npm start` runs it) while load balancers and
 * process managers keep probing it, as they do all the time.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { TEST_JWT_SECRET } from "../support/app-harness";
import { startServerProcess, type ServerProcess } from "../support/server-process";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("shutdown of the server process", function () {
  this.timeout(60_000);
  let server: ServerProcess | undefined;
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-shutdown-"));
  });
  after(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("exits soon after SIGTERM when nothing slow is in flight, however many probes arrive while it drains", async () => {
    server = await startServerProcess({
      NODE_ENV: "test",
      JWT_SECRET: TEST_JWT_SECRET,
      SQLITE_PATH: path.join(dir, "users.sqlite"),
      LOG_LEVEL: "info",
      SHUTDOWN_ACCEPT_WINDOW_MS: "500",
      SHUTDOWN_TIMEOUT_MS: "10000",
    });
    const running = server;
    let probing = true;
    const statuses: number[] = [];
    const probe = async (route: string) => {
      while (probing) {
        const status = await fetch(`${running.baseUrl}${route}`).then((r) => r.status, () => 0);
        statuses.push(status);
        await sleep(5);
      }
    };
    const probes = ["/healthz", "/healthz", "/readyz", "/api/no-such-route"].map(probe);
    await sleep(200);
    const signalledAt = Date.now();
    running.child.kill("SIGTERM");
    await Promise.race([running.exited, sleep(15_000)]);
    probing = false;
    await Promise.all(probes);

    const exit = running.exit();
    assert.ok(exit, "the process exited");
    const tookMs = exit.at - signalledAt;
    // The accept window is 0.5 s and the budget 10 s: well under the budget means nothing leaked.
    assert.ok(tookMs < 5000, `exited ${tookMs} ms after SIGTERM`);
    assert.ok(statuses.filter((s) => s !== 0).length > 20, "probes were answered while draining");
    assert.doesNotMatch(running.output(), /ERR_HTTP_HEADERS_SENT|uncaught/i);
    assert.equal(exit.code, 0, running.output().slice(-2000));
  });
});
