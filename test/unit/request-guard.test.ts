/**
 * An error that escapes one request (thrown by the listener, by a timer or a finish listener it set,
 * an unhandled rejection it left) fails that request only: it is answered 500 if still open, and
 * the process goes on. An error outside any request still reaches the previous handler (Colyseus's
 * shutdown). Runs test/fixtures/request-guard-server.ts in a process of its own.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { compiledEntry } from "../support/compiled-source";

const ROOT = path.resolve(__dirname, "../..");

describe("request guard: errors escaping a request", function () {
  this.timeout(30_000);
  let child: ChildProcess;
  let baseUrl: string;
  let exitCode: Promise<number | null>;

  before(async () => {
    child = spawn(process.execPath, ["--enable-source-maps", compiledEntry("test/fixtures/request-guard-server.ts")], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
    exitCode = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
    baseUrl = await new Promise((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (chunk) => {
        out += chunk;
        const port = /port (\d+)/.exec(out)?.[1];
        if (port) resolve(`http://127.0.0.1:${port}`);
      });
      child.once("exit", () => reject(new Error(`the fixture exited: ${out}`)));
    });
  });
  after(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });

  for (const [route, status] of [["/sync", 500], ["/timer", 500], ["/rejection", 500], ["/finish", 200]] as const) {
    it(`${route}: answered ${status}, and the process serves the next request`, async () => {
      const res = await fetch(baseUrl + route);
      assert.equal(res.status, status);
      if (status === 500) assert.equal(((await res.json()) as { data: { code: string } }).data.code, "internal_error");
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(child.exitCode, null);
      assert.equal(await (await fetch(`${baseUrl}/`)).text(), "ok");
    });
  }

  it("leaves an error outside any request to the previous handler", async () => {
    child.stdin!.write("boom\n");
    assert.equal(await exitCode, 7);
  });
});
