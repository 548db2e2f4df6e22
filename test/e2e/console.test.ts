/**
 * The operator console's JSON routes over HTTP on every store (SQLite + memory cache, PostgreSQL + Redis, MongoDB + Redis):
 * sign-in with a one-time password and TOTP, CSRF, roles, lockout, audit, the cookie's flags, the
 * player's disable closing their room socket with 4401, and refunds and grants from the server process (on the memory cache too).
 */
import assert from "node:assert/strict";
import { matchMaker } from "@colyseus/core";
import { Client } from "@colyseus/sdk";
import { SESSION_ENDED_CLOSE_CODE } from "../../rooms/session-guard";
import { sessionCookie } from "../../src/console/console-guard";
import { totpAt } from "../../src/services/console/totp";
import { startSimulator } from "../../src/simulator/simulator-server";
import { simulatorPlatformEnv, startHarness, TEST_JWT_SECRET, type Harness } from "../support/app-harness";
import { runAdmin } from "../support/admin-cli";
import { addOperator, ConsoleClient, OPERATOR_PASSWORD } from "../support/console";
import { storeBackends } from "../support/backends";
import { simulatorPaymentEnv } from "../support/payments";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;

for (const backend of storeBackends) describe(`operator console over HTTP — ${backend.name}`, function () {
  this.timeout(60_000);
  let h: Harness;
  let release: (() => Promise<void>) | undefined;
  let backendEnv: Record<string, string> = {};

  before(async () => {
    const prepared = await backend.prepare();
    release = prepared.release;
    backendEnv = prepared.env;
    const simulator = await startSimulator({ port: 0 });
    h = await startHarness({ simulator, env: { ...prepared.env, ...simulatorPaymentEnv(simulator.url) } });
  });
  after(async () => {
    await h?.close();
    await h?.simulator.close();
    await release?.();
  });

  const balance = async (openid: string) => ((await (await fetch(`${h.simulator.url}/__simulator/coins?platform=wechat&openid=${openid}`)).json()) as { balance: number }).balance;
  async function player() {
    const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("con")}.1`);
    assert.equal(login.status, 200);
    return login.body.data as { token: string; openid: string; user: { id: string; username: string } };
  }
  async function signedIn(role: "viewer" | "support" | "admin", totp = false) {
    const op = await addOperator(h.config, unique(role), role, { totp });
    const client = new ConsoleClient(h.baseUrl);
    const res = await client.signIn(op, OPERATOR_PASSWORD);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return { op, client };
  }

  it("serves the page from this process only, with a strict content security policy", async () => {
    const page = await fetch(`${h.baseUrl}/console`);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(page.headers.get("content-security-policy") ?? "", /default-src 'self'/);
    assert.equal(page.headers.get("x-frame-options"), "DENY");
    for (const asset of ["/console/app.js", "/console/console.css", "/console/screens/players.js"]) {
      const res = await fetch(h.baseUrl + asset);
      assert.equal(res.status, 200, asset);
      assert.doesNotMatch(await res.text(), /(src|href)=["']https?:\/\//, `${asset} loads nothing from another host`);
    }
    assert.doesNotMatch(html, /(src|href)=["'](https?:)?\/\//);
    const crossSite = await fetch(`${h.baseUrl}/console/api/session`, { headers: { origin: "https://evil.example" } });
    assert.equal(crossSite.headers.get("access-control-allow-origin"), null, "no other origin may read the console's answers");
  });

  it("admin with TOTP: one-time password first, then the code; the cookie is HttpOnly, SameSite=Strict, scoped", async () => {
    const op = await addOperator(h.config, unique("adm"), "admin", { totp: true });
    const client = new ConsoleClient(h.baseUrl);
    const noCode = await client.call("POST", "/session", { name: op.name, password: op.password });
    assert.equal(noCode.status, 401);
    assert.equal(noCode.body.data.code, "console_totp_required");
    const wrongCode = await client.call("POST", "/session", { name: op.name, password: op.password, totp: op.totp() === "000000" ? "111111" : "000000" });
    assert.equal(wrongCode.body.data.code, "console_totp_required");

    const signedIn = await client.call("POST", "/session", { name: op.name, password: op.password, totp: op.totp() });
    assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
    const cookie = signedIn.headers.get("set-cookie") ?? "";
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    assert.match(cookie, /Path=\/console/);
    assert.doesNotMatch(cookie, /Secure/, "plain HTTP in development");
    assert.equal(signedIn.body.data.operator.mustChangePassword, true);
    assert.equal("totpSecret" in signedIn.body.data.operator, false);

    const blocked = await client.call("GET", `/players?q=x`);
    assert.equal(blocked.status, 403);
    assert.equal(blocked.body.data.code, "console_password_change_required");
    const weak = await client.call("POST", "/password", { currentPassword: op.password, newPassword: "short" });
    assert.equal(weak.status, 400);
    const oldCookie = client.cookie;
    const changed = await client.call("POST", "/password", { currentPassword: op.password, newPassword: OPERATOR_PASSWORD });
    assert.equal(changed.status, 200);
    assert.notEqual(client.cookie, oldCookie, "a new session after the password change");
    assert.equal((await client.call("GET", "/players?q=x")).status, 200);
    // The replaced session is gone.
    const stale = new ConsoleClient(h.baseUrl);
    stale.cookie = oldCookie;
    assert.equal((await stale.call("GET", "/session")).status, 401);

    assert.match(sessionCookie("t", 60, { secure: true }), /; Secure/, "Secure in production");
  });

  it("a TOTP code is good once, and so is every earlier one: the previous step is refused after a newer one", async () => {
    const op = await addOperator(h.config, unique("step"), "admin", { totp: true });
    const code = (offsetMs: number) => totpAt(op.totpSecret!, Date.now() + offsetMs);
    const signIn = (totp: string) => new ConsoleClient(h.baseUrl).call("POST", "/session", { name: op.name, password: op.password, totp });
    // The next step is inside the drift window: accepted, after which the current one is not.
    assert.equal((await signIn(code(30_000))).status, 200);
    for (const earlier of [code(30_000), code(0), code(-30_000)]) {
      const refused = await signIn(earlier);
      assert.deepEqual([refused.status, refused.body.data.code], [401, "console_totp_required"]);
    }
  });

  it("a change without the CSRF token, or from another origin, is refused and audited", async () => {
    const { op, client } = await signedIn("admin");
    const p = await player();
    const noToken = await client.call("POST", `/players/${p.user.id}/kick`, undefined, { csrf: false });
    assert.equal(noToken.status, 403);
    assert.equal(noToken.body.data.code, "console_csrf_invalid");
    const foreign = await client.call("POST", `/players/${p.user.id}/kick`, undefined, { headers: { origin: "https://evil.example" } });
    assert.deepEqual([foreign.status, foreign.body.data.code], [403, "console_csrf_invalid"]);
    assert.match(foreign.body.message, /proxy_set_header Host \$http_host/, "the refusal hints at the proxy's Host header");
    const audit = await client.call("GET", `/audit?actor=${op.name}&action=player.kick`);
    assert.deepEqual(audit.body.data.map((e: any) => [e.outcome, e.target, e.detail.code]), [["refused", p.user.id, "console_csrf_invalid"]]);
    const refusedOrigin = await client.call("GET", `/audit?actor=${op.name}&action=request.foreign_origin`);
    assert.deepEqual(
      refusedOrigin.body.data.map((e: any) => [e.outcome, e.detail.code, e.detail.method, e.detail.path, e.detail.origin]),
      [["refused", "console_csrf_invalid", "POST", `/players/${p.user.id}/kick`, "https://evil.example"]],
    );
    // A sign-in from another origin has no operator yet: audited as anonymous.
    const signIn = await new ConsoleClient(h.baseUrl).call("POST", "/session", { name: op.name, password: OPERATOR_PASSWORD }, { headers: { origin: "http://127.0.0.1:1" } });
    assert.equal(signIn.status, 403);
    const anonymous = await client.call("GET", `/audit?actor=anonymous&action=request.foreign_origin`);
    assert.ok(anonymous.body.data.some((e: any) => e.detail.origin === "http://127.0.0.1:1" && e.detail.path === "/session"));
  });

  it("a viewer reads but every change is refused with 403 and audited", async () => {
    const { op, client } = await signedIn("viewer");
    const p = await player();
    const found = await client.call("GET", `/players?q=${p.openid}`);
    assert.equal(found.status, 200);
    assert.deepEqual(found.body.data.map((x: { user: { id: string } }) => x.user.id), [p.user.id]);
    const nickname = unique("Nick");
    assert.equal((await h.request("PATCH", "/api/users/me", { nickname, version: 1 }, { authorization: `Bearer ${p.token}` })).status, 200);
    const byNickname = await client.call("GET", `/players?q=${nickname}`);
    assert.deepEqual(byNickname.body.data.map((x: { user: { nickname: string } }) => x.user.nickname), [nickname]);
    for (const [path, body] of [[`/players/${p.user.id}/disable`, { reason: "cheat" }], [`/players/${p.user.id}/kick`, undefined], [`/players/${p.user.id}/orders/x/refund`, undefined]] as const) {
      const res = await client.call("POST", path, body);
      assert.equal(res.status, 403, path);
      assert.equal(res.body.data.code, "console_role_forbidden");
    }
    assert.equal((await client.call("GET", "/audit")).status, 403, "the audit is for support and admins");
    const { client: admin } = await signedIn("admin");
    const audit = await admin.call("GET", `/audit?actor=${op.name}&outcome=refused`);
    assert.deepEqual(audit.body.data.map((e: { action: string }) => e.action).sort(), ["order.refund", "player.disable", "player.kick"]);
    const csv = await admin.call("GET", `/audit?actor=${op.name}&format=csv`);
    assert.match(csv.headers.get("content-type") ?? "", /text\/csv/);
    assert.match(csv.body, /^at,actor,via,action,target,outcome,detail\r\n/);
    assert.match(csv.body, /player\.disable,[^,]+,refused/);
  });

  it("the last active admin cannot demote or disable themselves; the refusal is audited", async () => {
    const { op, client } = await signedIn("admin");
    // Make this admin the last active one (the other tests' admins are done with).
    for (const other of (await client.call("GET", "/operators")).body.data as Array<{ name: string; role: string; disabled: boolean }>) {
      if (other.role === "admin" && !other.disabled && other.name !== op.name) assert.equal((await client.call("POST", `/operators/${other.name}/disable`)).status, 200);
    }
    const demoted = await client.call("POST", `/operators/${op.name}/role`, { role: "support" });
    assert.deepEqual([demoted.status, demoted.body.data.code], [409, "last_admin"]);
    assert.equal((await client.call("POST", `/operators/${op.name}/disable`)).status, 400);
    assert.equal((await client.call("GET", "/operators")).body.data.find((o: { name: string }) => o.name === op.name).role, "admin", "still an admin, still signed in");
    const trail = await client.call("GET", `/audit?action=operator.role&target=${op.name}`);
    assert.deepEqual(trail.body.data.map((e: any) => [e.outcome, e.detail.code]), [["refused", "last_admin"]]);
  });

  it("10 wrong passwords lock the name, even for the right password, and the lock is audited", async () => {
    const op = await addOperator(h.config, unique("lock"), "support");
    const client = new ConsoleClient(h.baseUrl);
    for (let i = 0; i < 10; i++) {
      const res = await client.call("POST", "/session", { name: op.name, password: `wrong-${i}` }, { headers: { "x-forwarded-for": `10.0.0.${i}` } });
      assert.equal(res.status, 401);
      assert.equal(res.body.data.code, "invalid_credentials");
    }
    const locked = await client.call("POST", "/session", { name: op.name, password: op.password });
    assert.equal(locked.status, 429);
    assert.equal(locked.body.data.code, "operator_locked");
    assert.ok(Number(locked.headers.get("retry-after")) > 0);
    const { client: admin } = await signedIn("admin");
    const audit = await admin.call("GET", `/audit?target=${op.name}&action=operator.lock`);
    assert.equal(audit.body.data.length, 1);
  });

  it("admin finds a player by openid, refunds an order and grants coins through the server process, sees their live room; disabling closes it with 4401", async () => {
    const { client } = await signedIn("admin");
    const p = await player();
    await fetch(`${h.simulator.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid: p.openid, balance: 100 }) });
    const bought = await h.request("POST", "/api/payments/orders", { orderId: "sword-1", itemId: "sword", coins: 30 }, { authorization: `Bearer ${p.token}` });
    assert.equal(bought.status, 201, JSON.stringify(bought.body));
    assert.equal(await balance(p.openid), 70);

    const found = await client.call("GET", `/players?q=${encodeURIComponent(`wechat:${p.openid}`)}`);
    assert.equal(found.body.data[0].user.id, p.user.id);
    assert.ok(found.body.data[0].identities.some((i: { platformId: string; app: string }) => i.platformId === p.openid && i.app === "default"));
    const orders = await client.call("GET", `/players/${p.user.id}/orders`);
    assert.deepEqual(orders.body.data.map((o: { orderId: string }) => o.orderId), ["sword-1"]);

    for (let i = 0; i < 2; i++) {
      const refund = await client.call("POST", `/players/${p.user.id}/orders/sword-1/refund`);
      assert.equal(refund.status, 200, JSON.stringify(refund.body));
      assert.equal(refund.body.data.state, "refunded");
    }
    assert.equal(await balance(p.openid), 100, "refunded once");
    for (let i = 0; i < 2; i++) {
      const grant = await client.call("POST", `/players/${p.user.id}/grants`, { platform: "wechat", coins: 25, grantId: "outage-1", reason: "outage" });
      assert.equal(grant.status, 200, JSON.stringify(grant.body));
      assert.equal(grant.body.data.state, "delivered");
    }
    assert.equal(await balance(p.openid), 125, "granted once");
    const grants = await client.call("GET", `/audit?action=order.grant&target=${p.user.id}`);
    assert.deepEqual(grants.body.data.map((e: { outcome: string }) => e.outcome).sort(), ["ok", "repeated", "started", "started"], "the replay is on record as a repeat, not a second grant");

    const room = await new Client(h.baseUrl).joinOrCreate("lobby", { accessToken: p.token });
    const closed = new Promise<number>((resolve) => room.onLeave((code) => resolve(code)));
    const live = await client.call("GET", `/players/${p.user.id}/rooms`);
    assert.deepEqual(live.body.data.rooms.map((r: any) => [r.roomId, r.roomType, r.app, r.processId, r.pid, r.connected]), [[room.roomId, "lobby", "default", matchMaker.processId, process.pid, true]]);
    const disabled = await client.call("POST", `/players/${p.user.id}/disable`, { reason: "chargeback abuse", until: "2099-01-01T00:00:00Z" });
    assert.equal(disabled.status, 200, JSON.stringify(disabled.body));
    assert.equal(disabled.body.data.restriction.reason, "chargeback abuse");
    assert.equal(await closed, SESSION_ENDED_CLOSE_CODE);
    const me = await h.get("/api/users/me", { authorization: `Bearer ${p.token}` });
    assert.ok([401, 403].includes(me.status), `the player's token no longer opens the API (${me.status})`);
  });

  it("a support operator's grant is capped; erase needs the typed username", async () => {
    const { client } = await signedIn("support");
    const p = await player();
    const big = await client.call("POST", `/players/${p.user.id}/grants`, { platform: "wechat", coins: 100_000, grantId: "big-1" });
    assert.equal(big.status, 403);
    const { client: admin } = await signedIn("admin");
    const wrong = await admin.call("POST", `/players/${p.user.id}/erase`, { confirm: "nope" });
    assert.equal(wrong.status, 400);
    const erased = await admin.call("POST", `/players/${p.user.id}/erase`, { confirm: p.user.username });
    assert.equal(erased.status, 200);
    // An unknown (here: erased) player is not found, not "disabled", and a change on them is audited so.
    const gone = await admin.call("GET", `/players/${p.user.id}`);
    assert.deepEqual([gone.status, gone.body.data.code], [404, "player_not_found"]);
    const kick = await admin.call("POST", `/players/${p.user.id}/kick`);
    assert.deepEqual([kick.status, kick.body.data.code], [404, "player_not_found"]);
    const exported = await admin.call("GET", `/players/${p.user.id}/export`);
    assert.deepEqual([exported.status, exported.body.data.code], [404, "player_not_found"]);
    const trail = await admin.call("GET", `/audit?action=player.kick&target=${p.user.id}`);
    assert.deepEqual(trail.body.data.map((e: { outcome: string; detail: { code?: string } }) => [e.outcome, e.detail.code]), [["refused", "player_not_found"]]);
  });

  it("mail: support within the cap to one player, admin to every player of the app; each claims once", async () => {
    const { op: support, client } = await signedIn("support");
    const [a, b] = [await player(), await player()];
    const over = await client.call("POST", "/mail", { userId: a.user.id, title: "too much", currencies: { gems: 1001 } });
    assert.deepEqual([over.status, over.body.data.code], [403, "console_role_forbidden"]);
    const small = await client.call("POST", "/mail", { userId: a.user.id, title: "sorry", currencies: { gems: 10 } });
    assert.equal(small.status, 200, JSON.stringify(small.body));
    // Attachments the catalog does not have (the old placeholder, a typo) are refused, named, and nothing is sent.
    const typo = await client.call("POST", "/mail", { userId: a.user.id, title: "typo", currencies: { gold: 1 }, items: [{ itemId: "poton", count: 1 }] });
    assert.deepEqual([typo.status, typo.body.data.code], [422, "not_in_catalog"]);
    assert.match(typo.body.message, /currency "gold", item "poton"/);
    assert.deepEqual((await h.get("/api/mail", { authorization: `Bearer ${a.token}` })).body.data.mail.map((m: { title: string }) => m.title), ["sorry"]);
    const trail = await client.call("GET", `/audit?action=mail.send&actor=${support.name}&since=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}`);
    // Entries of one millisecond have no order among them: compared as a set.
    assert.deepEqual(trail.body.data.map((e: { outcome: string }) => e.outcome).sort(), ["ok", "refused", "refused", "started", "started", "started"]);
    const { client: admin } = await signedIn("admin");
    const everyone = await admin.call("POST", "/mail", { userId: null, title: "outage", currencies: { gems: 5000 }, items: [{ itemId: "sword", count: 1 }], expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    assert.equal(everyone.status, 200, JSON.stringify(everyone.body));
    for (const p of [a, b]) {
      const auth = { authorization: `Bearer ${p.token}` };
      const claim = () => h.request("POST", `/api/mail/${everyone.body.data.mailId}/claim`, undefined, auth);
      assert.deepEqual([(await claim()).body.data.granted, (await claim()).body.data.granted], [true, false]);
      const wallet = await admin.call("GET", `/economy/players/${p.user.id}?app=default`);
      assert.equal(wallet.body.data.balances.gems, 5000, "the mail to everyone, once (a's own mail is not claimed)");
    }
    assert.equal((await h.request("POST", `/api/mail/${small.body.data.mailId}/claim`, undefined, { authorization: `Bearer ${b.token}` })).status, 404, "one player's mail is theirs");
  });

  it("export: the same record as npm run admin -- export, with orders, economy and ledger, leaderboards, mail and ad views, LiveOps properties", async () => {
    const { client } = await signedIn("support");
    const p = await player();
    const auth = { authorization: `Bearer ${p.token}` };
    await fetch(`${h.simulator.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid: p.openid, balance: 100 }) });
    assert.equal((await h.request("POST", "/api/payments/orders", { orderId: "exp-1", itemId: "sword", coins: 30 }, auth)).status, 201);
    const mail = await client.call("POST", "/mail", { userId: p.user.id, title: "export", currencies: { gems: 3 } });
    assert.equal((await h.request("POST", `/api/mail/${mail.body.data.mailId}/claim`, undefined, auth)).body.data.granted, true);
    assert.equal((await h.request("POST", "/api/leaderboards/highscores/scores", { score: 12 }, auth)).status, 200);
    await h.services.liveops.setProperty("default", p.user.id, "vip", 2);
    // The analytics events still buffered (up to ANALYTICS_FLUSH_MS) are in neither export yet: written first, both read the same.
    await h.services.analytics.writer.flush();

    const exported = await client.call("GET", `/players/${p.user.id}/export`);
    assert.equal(exported.status, 200, JSON.stringify(exported.body));
    const record = exported.body.data;
    assert.deepEqual(Object.keys(record).sort(), ["adViews", "analyticsEvents", "economy", "identities", "leaderboards", "liveops", "mail", "mailClaims", "orders", "saves", "sessionApps", "sessionLive", "supportMessages", "user"]);
    assert.deepEqual(record.orders.map((o: { orderId: string }) => o.orderId), ["exp-1"]);
    assert.deepEqual(record.economy.default.balances, { gems: 3 });
    assert.ok(record.economy.default.ledger.some((e: { source: string }) => e.source === "mail"));
    assert.deepEqual(record.leaderboards.map((r: { app: string; board: string; score: number }) => [r.app, r.board, r.score]), [["default", "highscores", 12]]);
    assert.deepEqual([record.mail.length, record.mailClaims.length, record.adViews], [1, 1, []]);
    assert.deepEqual(record.liveops, [{ app: "default", assignments: {}, properties: { vip: 2 } }]);

    // The CLI's export of the same player, from another process: the same record (its sessions aside: it may not reach this process's cache).
    const cli = await runAdmin({ ...process.env, NODE_ENV: "development", JWT_SECRET: TEST_JWT_SECRET, LOG_LEVEL: "warn", SQLITE_PATH: h.config.store.kind === "sqlite" ? h.config.store.path : "", ...simulatorPlatformEnv(h.simulator.url), ...backendEnv }, "export", p.user.id);
    assert.equal(cli.status, 0, cli.stderr);
    const withoutSessions = ({ sessionLive: _l, sessionApps: _a, ...rest }: Record<string, unknown>) => rest;
    assert.deepEqual(withoutSessions(JSON.parse(cli.stdout)), withoutSessions(record));
  });

  it("signing out ends the session; health and apps show no secret", async () => {
    const { client } = await signedIn("viewer");
    const health = await client.call("GET", "/health");
    assert.equal(health.status, 200);
    assert.ok(health.body.data.thisProcess.pid > 0);
    const apps = await client.call("GET", "/apps");
    assert.equal(apps.status, 200);
    const text = JSON.stringify(apps.body) + JSON.stringify(health.body);
    assert.doesNotMatch(text, /secret|appKey|password|sessionKey/i);
    const out = await client.call("DELETE", "/session");
    assert.equal(out.status, 200);
    assert.equal((await client.call("GET", "/session")).status, 401);
  });
});
