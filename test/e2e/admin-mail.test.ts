/**
 * Operators' mail as an operator sends it (`npm run admin -- mail send`, a separate process with the
 * servers' settings): to one player and to every player, listed by the players of a running server,
 * claimed once; a repeated send with the same --mail-id is the same mail; bad arguments are usage
 * errors with nothing written; export shows the player's mail and claims, erase removes them.
 */
import assert from "node:assert/strict";
import { simulatorPlatformEnv, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { startHarness, TEST_JWT_SECRET, type Harness } from "../support/app-harness";
import { runAdmin } from "../support/admin-cli";
import { createTestDatabase, type TestDatabase } from "../support/postgres";
import { testDatabaseUrl, testRedisUrl, uniquePrefix } from "../support/services";

describe("admin mail: send to one player and to all, export and erase (PostgreSQL + Redis)", function () {
  this.timeout(120_000);
  let simulator: RunningSimulator;
  let db: TestDatabase;
  let h: Harness;
  let env: NodeJS.ProcessEnv;

  before(async function () {
    if (!testRedisUrl || !testDatabaseUrl) return this.skip();
    simulator = await startSimulator({ port: 0 });
    db = await createTestDatabase(testDatabaseUrl);
    const shared = { DATABASE_URL: db.url, REDIS_URL: testRedisUrl, CACHE_KEY_PREFIX: uniquePrefix("adminmail") };
    h = await startHarness({ env: shared, simulator });
    env = { ...process.env, NODE_ENV: "development", JWT_SECRET: TEST_JWT_SECRET, LOG_LEVEL: "warn", ...simulatorPlatformEnv(simulator.url), ...shared };
  });
  after(async () => {
    await h?.close();
    await simulator?.close();
    await db?.drop();
  });

  const admin = (...args: string[]) => runAdmin(env, ...args);
  async function player() {
    const login = await h.get(`/api/minigame/wechat/login?jsCode=adminmail${Date.now().toString(36)}${Math.random()}`);
    return { id: login.body.data.user.id as string, headers: { authorization: `Bearer ${login.body.data.token}` } };
  }

  it("sends to one player and to all; each player claims once; a repeated --mail-id is one mail", async () => {
    const [ann, bob] = [await player(), await player()];
    const personal = await admin("mail", "send", "--to", ann.id, "--title", "Just you", "--item", "potion=2", "--by", "ops-ida");
    assert.equal(personal.status, 0, personal.stderr);
    assert.match(personal.stderr, /"action":"mail".*"by":"ops-ida"|"by":"ops-ida".*"action":"mail"/);
    const all = await admin("mail", "send", "--all", "--title", "Outage", "--currency", "gems=30", "--mail-id", "outage-1", "--expires", "2099-01-01T00:00:00Z");
    assert.equal(all.status, 0, all.stderr);
    const again = JSON.parse((await admin("mail", "send", "--all", "--title", "Outage again", "--currency", "gems=30", "--mail-id", "outage-1")).stdout);
    assert.equal(again.created, false);
    assert.equal(again.mail.title, "Outage");
    const annMail = (await h.get("/api/mail", ann.headers)).body.data.mail.map((m: { title: string }) => m.title);
    const bobMail = (await h.get("/api/mail", bob.headers)).body.data.mail.map((m: { title: string }) => m.title);
    assert.ok(annMail.includes("Just you") && annMail.includes("Outage"));
    assert.ok(!bobMail.includes("Just you") && bobMail.includes("Outage"));
    for (const p of [ann, bob]) {
      assert.equal((await h.request("POST", "/api/mail/outage-1/claim", undefined, p.headers)).body.data.granted, true);
      assert.equal((await h.request("POST", "/api/mail/outage-1/claim", undefined, p.headers)).body.data.granted, false);
      assert.deepEqual((await h.get("/api/economy/wallet", p.headers)).body.data.balances, { gems: 30 });
    }
  });

  it("refuses bad arguments with nothing written", async () => {
    assert.equal((await admin("mail", "send", "--all", "--to", "x", "--title", "t", "--currency", "gems=1")).status, 2);
    assert.equal((await admin("mail", "send", "--all", "--title", "t", "--currency", "gems=0")).status, 2);
    assert.equal((await admin("mail", "send", "--all", "--title", "t", "--expires", "soon")).status, 2);
    const nothing = await admin("mail", "send", "--all", "--title", "Empty");
    assert.equal(nothing.status, 1);
    assert.match(nothing.stderr, /attachments/);
    assert.equal((await admin("mail", "send", "--to", "no-such-user", "--title", "t", "--currency", "gems=1")).status, 1);
    const typo = await admin("mail", "send", "--all", "--title", "t", "--currency", "gold=1", "--item", "poton=1", "--mail-id", "typo-mail");
    assert.equal(typo.status, 1);
    assert.match(typo.stderr, /Not in the catalog of app default: currency "gold", item "poton"/);
    const p = await player();
    assert.ok(!(await h.get("/api/mail", p.headers)).body.data.mail.some((m: { mailId: string }) => m.mailId === "typo-mail"), "nothing was sent");
  });

  it("export shows the player's mail and claims; erase removes them", async () => {
    const p = await player();
    assert.equal((await admin("mail", "send", "--to", p.id, "--title", "Yours", "--currency", "gems=3", "--mail-id", `yours-${Date.now()}`)).status, 0);
    const mailId = (await h.get("/api/mail", p.headers)).body.data.mail.find((m: { title: string }) => m.title === "Yours").mailId;
    await h.request("POST", `/api/mail/${mailId}/claim`, undefined, p.headers);
    const exported = JSON.parse((await admin("export", p.id)).stdout);
    assert.deepEqual(exported.mail.map((m: { title: string }) => m.title), ["Yours"]);
    assert.deepEqual(exported.mailClaims.map((c: { mailId: string }) => c.mailId), [mailId]);
    assert.equal((await admin("erase", p.id)).status, 0);
    const { Client } = await import("pg");
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query("select (select count(*) from mail where user_id = $1) + (select count(*) from mail_claims where user_id = $1) as n", [p.id]);
      assert.equal(Number(rows[0].n), 0);
    } finally {
      await client.end();
    }
  });
});
