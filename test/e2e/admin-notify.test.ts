/**
 * `npm run admin -- notify` as an operator runs it: a separate process with the server's settings
 * (the same SQLite store, the same simulator), sending one subscribe message per grant.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { simulatorPlatformEnv, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { startHarness, TEST_JWT_SECRET, type Harness } from "../support/app-harness";
import { runAdmin } from "../support/admin-cli";


describe("admin notify", function () {
  this.timeout(60_000);
  let simulator: RunningSimulator;
  let h: Harness;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    simulator = await startSimulator({ port: 0 });
    const sqlitePath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mgl-notify-")), "users.sqlite");
    h = await startHarness({ env: { SQLITE_PATH: sqlitePath }, simulator });
    env = { ...process.env, NODE_ENV: "development", JWT_SECRET: TEST_JWT_SECRET, SQLITE_PATH: sqlitePath, LOG_LEVEL: "warn", ...simulatorPlatformEnv(simulator.url) };
  });
  after(async () => {
    await h?.close();
    await simulator?.close();
  });

  const admin = (...args: string[]) => runAdmin(env, ...args);

  it("sends one message per grant, says so when none is left, and writes an audit line", async () => {
    const login = await h.get(`/api/minigame/wechat/login?jsCode=notify${Date.now().toString(36)}.1`);
    assert.equal(login.status, 200);
    const { user, openid } = login.body.data;
    await fetch(`${simulator.url}/__simulator/subscribe-grant`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid, templateId: "tpl-admin" }) });

    const sent = await admin("notify", user.id, "tpl-admin", "--platform", "wechat", "--data", "thing1=Season starts", "--page", "pages/index", "--by", "ops-carol");
    assert.equal(sent.status, 0, sent.stderr);
    assert.deepEqual(JSON.parse(sent.stdout), { sent: true });
    const auditLine = sent.stderr.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l)).find((e) => e.event === "admin_action");
    assert.deepEqual([auditLine.action, auditLine.by, auditLine.userId, auditLine.templateId], ["notify", "ops-carol", user.id, "tpl-admin"]);
    const { messages } = (await (await fetch(`${simulator.url}/__simulator/subscribe-messages?platform=wechat&openid=${openid}`)).json()) as any;
    assert.deepEqual([messages.length, messages[0].data, messages[0].page], [1, { thing1: { value: "Season starts" } }, "pages/index"]);

    const again = await admin("notify", `wechat:${openid}`, "tpl-admin", "--platform", "wechat", "--data", "thing1=Again");
    assert.equal(again.status, 1);
    assert.match(again.stderr, /no unused grant/);
  });

  it("refuses a notify without a platform, a template or data, and notify options on other commands", async () => {
    // In parallel: each run is a process start.
    const cases = [["notify", "someone", "tpl", "--data", "a=b"], ["notify", "someone", "--platform", "wechat", "--data", "a=b"], ["notify", "someone", "tpl", "--platform", "wechat"], ["find", "someone", "--platform", "wechat"]];
    const runs = await Promise.all(cases.map((args) => admin(...args)));
    runs.forEach((run, i) => assert.equal(run.status, 2, `${cases[i].join(" ")}: ${run.stderr}`));
  });
});
