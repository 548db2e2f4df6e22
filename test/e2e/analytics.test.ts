/**
 * Analytics end to end, on every store: the server records logins (new, then returning, with the
 * client's appVersion), room sessions and the players' own events (POST /api/events, judged one by
 * one); a rollup shows them in the console's daily and retention reads, and so does the admin
 * CLI's CSV after two CLI processes rolled up at once; an erase removes the player's events; a
 * blackholed analytics store slows and fails nothing.
 */
import assert from "node:assert/strict";
import { Client } from "@colyseus/sdk";
import { runAdmin } from "../support/admin-cli";
import { startHarness, TEST_JWT_SECRET, simulatorPlatformEnv, type Harness } from "../support/app-harness";
import { storeBackends } from "../support/backends";
import { addOperator, ConsoleClient, OPERATOR_PASSWORD } from "../support/console";
import type { AnalyticsEvent } from "../../src/core/ports/analytics-store";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;

for (const backend of storeBackends) describe(`analytics end to end — ${backend.name}`, function () {
  this.timeout(60_000);
  let h: Harness;
  let release: (() => Promise<void>) | undefined;
  const player = unique("fan");
  let token = "";
  let userId = "";
  let storeEnv: Record<string, string> = {};

  before(async () => {
    const prepared = await backend.prepare();
    release = prepared.release;
    storeEnv = prepared.env;
    h = await startHarness({ env: { ...prepared.env, ANALYTICS_ROLLUP_MINUTES: "0" } });
  });
  after(async () => {
    await h?.close();
    await release?.();
  });

  const eventsOf = async (user: string): Promise<AnalyticsEvent[]> => {
    await h.services.analytics.writer.flush();
    const all = await h.services.analytics.store.scan({ from: "2000-01-01T00:00:00.000Z", to: "2100-01-01T00:00:00.000Z", limit: 1000 });
    return all.filter((e) => e.userId === user);
  };

  it("records a new login, a returning one, a room session and the player's own events", async () => {
    const first = await h.get(`/api/minigame/wechat/login?jsCode=${player}.1&appVersion=1.4.2`);
    assert.equal(first.status, 200);
    ({ token } = first.body.data);
    userId = first.body.data.user.id;
    const again = await h.get(`/api/minigame/wechat/login?jsCode=${player}.2&appVersion=not%20a%20version`);
    assert.equal(again.status, 200, "a bad appVersion never refuses a login");
    token = again.body.data.token;
    const room = await new Client(h.baseUrl).joinOrCreate("lobby", { accessToken: token });
    await room.leave(true);

    const auth = { authorization: `Bearer ${token}` };
    const batch = [
      { name: "tutorial_done", props: { step: 3, skipped: false, from: "menu" } },
      { name: "shop_opened", at: new Date(Date.now() - 3600_000).toISOString() },
      { name: "Bad Name" },
      { name: "too_old", at: "2020-01-01T00:00:00Z" },
      { name: "nested", props: { deep: { a: 1 } } },
      { name: "extra", value: 1 },
      "junk",
    ];
    const sent = await h.request("POST", "/api/events", { events: batch }, auth);
    assert.equal(sent.status, 202);
    assert.deepEqual(sent.body.data, { accepted: 2, refused: 5 });
    assert.equal((await h.request("POST", "/api/events", { events: Array.from({ length: 101 }, () => ({ name: "x" })) }, auth)).status, 400);
    assert.equal((await h.request("POST", "/api/events", { events: [{ name: "x" }] })).status, 401);

    let mine: AnalyticsEvent[] = [];
    for (let i = 0; i < 50 && !mine.some((e) => e.name === "session_end"); i++) {
      mine = await eventsOf(userId);
      await new Promise((r) => setTimeout(r, 50));
    }
    const logins = mine.filter((e) => e.name === "login");
    assert.deepEqual(logins.map((e) => e.props).sort((a, b) => Number(b.new) - Number(a.new)), [{ new: true, appVersion: "1.4.2" }, { new: false }]);
    assert.ok(logins.every((e) => e.platform === "wechat" && e.app === "default"));
    assert.equal(mine.filter((e) => e.name === "session_start").length, 1);
    const ended = mine.find((e) => e.name === "session_end")!;
    assert.equal(ended.platform, "wechat", "the platform is found for events that did not name it");
    assert.equal(typeof ended.props.seconds, "number");
    const client = mine.filter((e) => e.name.startsWith("client.")).map((e) => [e.name, e.props]);
    assert.deepEqual(client.sort(), [["client.shop_opened", {}], ["client.tutorial_done", { step: 3, skipped: false, from: "menu" }]]);
  });

  it("shows the rolled-up day in the console's daily and retention reads", async () => {
    const rollups = h.services.analytics.rollups;
    const today = rollups.today();
    await rollups.rollup(today, today);
    const op = await addOperator(h.config, unique("viewer"), "viewer");
    const consoleClient = new ConsoleClient(h.baseUrl);
    assert.equal((await consoleClient.signIn(op, OPERATOR_PASSWORD)).status, 200);
    const daily = await consoleClient.call("GET", `/analytics/daily?app=default&platform=wechat&from=${today}&to=${today}`);
    assert.equal(daily.status, 200);
    assert.equal(daily.body.data.timeZone, "Asia/Shanghai");
    assert.deepEqual(daily.body.data.days.map((d: { date: string; dau: number; newPlayers: number; sessions: number }) => [d.date, d.dau, d.newPlayers, d.sessions]), [[today, 1, 1, 1]]);
    const retention = await consoleClient.call("GET", `/analytics/retention?from=${today}&to=${today}`);
    assert.deepEqual(retention.body.data.cohorts, [{ date: today, size: 1, retained: { d1: null, d3: null, d7: null, d14: null, d30: null } }]);
    assert.equal((await consoleClient.call("GET", `/analytics/daily?from=${today}&to=2000-01-01`)).status, 400);
    assert.equal((await new ConsoleClient(h.baseUrl).call("GET", `/analytics/daily?from=${today}&to=${today}`)).status, 401);
  });

  it("the admin CLI rolls up in two processes at once and exports CSV", async () => {
    const sqlite = h.config.store.kind === "sqlite" ? { SQLITE_PATH: h.config.store.path } : {};
    const env = { ...process.env, NODE_ENV: "development", JWT_SECRET: TEST_JWT_SECRET, LOG_LEVEL: "warn", ...simulatorPlatformEnv(h.simulator.url), ...storeEnv, ...sqlite };
    const rolled = await Promise.all([runAdmin(env, "analytics", "rollup"), runAdmin(env, "analytics", "rollup")]);
    for (const run of rolled) {
      assert.equal(run.status, 0, run.stderr);
      assert.equal(JSON.parse(run.stdout).timeZone, "Asia/Shanghai");
    }
    const today = h.services.analytics.rollups.today();
    const csv = await runAdmin(env, "analytics", "export", "--table", "daily", "--format", "csv", "--app", "default", "--platform", "wechat", "--from", today, "--to", today);
    assert.equal(csv.status, 0, csv.stderr);
    const [header, row] = csv.stdout.trim().split("\n");
    const columns = header!.split(",");
    const cells = row!.split(",");
    assert.equal(cells[columns.indexOf("date")], today);
    assert.equal(cells[columns.indexOf("dau")], "1");
    assert.equal(cells[columns.indexOf("newPlayers")], "1");
    const retention = await runAdmin(env, "analytics", "export", "--table", "retention", "--from", today, "--to", today);
    assert.match(retention.stdout, /^date,size,retained\.d1,retained\.d3,retained\.d7,retained\.d14,retained\.d30\n/);
    assert.equal((await runAdmin(env, "analytics", "export", "--table", "weekly")).status, 2);
  });

  it("the player's export, from the console and the admin CLI alike, carries their events", async function () {
    this.timeout(120_000); // an admin CLI process starts (slow on a shared machine)
    const stored = await eventsOf(userId);
    const expected = stored.sort((a, b) => a.at.localeCompare(b.at) || a.id.localeCompare(b.id)).map(({ userId: _user, ...event }) => event);
    assert.ok(expected.some((e) => e.name === "client.tutorial_done") && expected.some((e) => e.name === "login"));
    const op = await addOperator(h.config, unique("support"), "support");
    const consoleClient = new ConsoleClient(h.baseUrl);
    assert.equal((await consoleClient.signIn(op, OPERATOR_PASSWORD)).status, 200);
    const fromConsole = await consoleClient.call("GET", `/players/${userId}/export`);
    assert.equal(fromConsole.status, 200);
    assert.deepEqual(fromConsole.body.data.analyticsEvents, expected);
    const sqlite = h.config.store.kind === "sqlite" ? { SQLITE_PATH: h.config.store.path } : {};
    const env = { ...process.env, NODE_ENV: "development", JWT_SECRET: TEST_JWT_SECRET, LOG_LEVEL: "warn", ...simulatorPlatformEnv(h.simulator.url), ...storeEnv, ...sqlite };
    const fromCli = await runAdmin(env, "export", userId);
    assert.equal(fromCli.status, 0, fromCli.stderr);
    assert.deepEqual(JSON.parse(fromCli.stdout).analyticsEvents, expected);
  });

  it("erasing the player removes their events", async () => {
    assert.ok((await eventsOf(userId)).length > 0);
    assert.equal(await h.services.accounts.eraseUser(userId), true);
    assert.deepEqual(await eventsOf(userId), []);
  });

  it("a blackholed analytics store: logins and client events answer as before, the backlog is counted", async () => {
    const { store, writer } = h.services.analytics;
    const original = store.append;
    store.append = () => new Promise<void>(() => undefined); // never answers
    try {
      for (let i = 0; i < 10; i++) {
        const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("dark")}`);
        assert.equal(login.status, 200);
        const sent = await h.request("POST", "/api/events", { events: [{ name: "still_here" }] }, { authorization: `Bearer ${login.body.data.token}` });
        assert.deepEqual([sent.status, sent.body.data], [202, { accepted: 1, refused: 0 }]);
      }
      assert.ok(writer.backlog >= 20, `backlog ${writer.backlog}`);
      const gauge = await h.services.metrics.registry.getSingleMetric("analytics_events_backlog")!.get();
      assert.ok(gauge.values[0]!.value >= 20);
    } finally {
      store.append = original;
    }
  });
});
