/**
 * The console's JSON routes against the API description (tag `console`): every answer, success and
 * failure, matches what the document says for its route and status, and every documented console
 * route is exercised with a success and a failure.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { totpAt } from "../../src/services/console/totp";
import { startSimulator } from "../../src/simulator/simulator-server";
import { startHarness, type Harness } from "../support/app-harness";
import { addOperator, ConsoleClient, OPERATOR_PASSWORD } from "../support/console";
import { Conformance } from "../support/openapi-conformance";
import { simulatorPaymentEnv } from "../support/payments";
import { simulatorRewardEnv } from "../support/rewards";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;

describe("console routes in the API description", function () {
  this.timeout(90_000);
  let h: Harness;
  let conformance: Conformance;

  before(async () => {
    const simulator = await startSimulator({ port: 0 });
    const boards = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "console-boards-")), "leaderboards.json");
    fs.writeFileSync(boards, JSON.stringify({ default: [{ id: "highscores", order: "desc", operator: "best", clientSubmit: true, minScore: 0, maxScore: 1000 }] }));
    h = await startHarness({ simulator, env: { ...simulatorPaymentEnv(simulator.url), ...simulatorRewardEnv(), LEADERBOARDS_FILE: boards } });
    conformance = new Conformance((await h.get("/api-docs.json")).body);
  });
  after(async () => {
    await h?.close();
    await h?.simulator.close();
  });

  it("documents the console under its own tag with the cookie and CSRF schemes", () => {
    const doc = conformance.doc;
    assert.ok(doc.tags.some((t: { name: string }) => t.name === "console"));
    assert.deepEqual(doc.paths["/console/api/players/{userId}/disable"].post.security, [{ consoleSession: [], consoleCsrf: [] }]);
    assert.deepEqual(doc.paths["/console/api/players"].get.security, [{ consoleSession: [] }]);
    assert.equal(doc.paths["/console/api/session"].post.security, undefined);
    assert.equal(doc.components.securitySchemes.consoleSession.in, "cookie");
  });

  it("answers every console route as documented, success and failure", async () => {
    const admin = new ConsoleClient(h.baseUrl);
    const viewer = new ConsoleClient(h.baseUrl);
    const anonymous = new ConsoleClient(h.baseUrl);
    const adminOp = await addOperator(h.config, unique("doc-admin"), "admin");
    const viewerOp = await addOperator(h.config, unique("doc-viewer"), "viewer");
    const call = async (client: ConsoleClient, method: string, route: string, path = route, body?: unknown, options?: { csrf?: boolean }) =>
      conformance.check(method, `/console/api${route}`, await client.call(method, path, body, options));

    assert.equal((await call(anonymous, "GET", "/session")).status, 401);
    assert.equal((await call(anonymous, "POST", "/session", "/session", { name: adminOp.name, password: "wrong-password" })).status, 401);
    assert.equal((await call(admin, "POST", "/session", "/session", { name: adminOp.name, password: adminOp.password })).status, 200);
    assert.equal((await call(admin, "GET", "/screens")).status, 403, "password change first");
    assert.equal((await call(admin, "POST", "/password", "/password", { currentPassword: "wrong-password", newPassword: OPERATOR_PASSWORD })).status, 401);
    assert.equal((await call(admin, "POST", "/password", "/password", { currentPassword: adminOp.password, newPassword: OPERATOR_PASSWORD })).status, 200);
    assert.equal((await call(admin, "GET", "/session")).status, 200);
    assert.equal((await viewer.signIn(viewerOp, OPERATOR_PASSWORD)).status, 200);
    assert.equal((await call(anonymous, "GET", "/screens")).status, 401);
    assert.equal((await call(admin, "GET", "/screens")).status, 200);

    const code = unique("doc");
    const login = await h.get(`/api/minigame/wechat/login?jsCode=${code}.1`);
    const { user, openid, token } = login.body.data;
    await fetch(`${h.simulator.url}/__simulator/coins`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid, balance: 100 }) });
    assert.equal((await h.request("POST", "/api/payments/orders", { orderId: "doc-1", itemId: "gem", coins: 10 }, { authorization: `Bearer ${token}` })).status, 201);
    const p = `/players/${user.id}`;
    const none = "/players/no-such-player";

    assert.equal((await call(admin, "GET", "/players", `/players?q=${openid}`)).status, 200);
    assert.equal((await call(admin, "GET", "/players", "/players?q=")).status, 400);
    assert.equal((await call(admin, "GET", "/players/{userId}", p)).status, 200);
    assert.equal((await call(admin, "GET", "/players/{userId}", none)).status, 404);
    assert.equal((await call(admin, "GET", "/players/{userId}/export", `${p}/export`)).status, 200);
    assert.equal((await call(viewer, "GET", "/players/{userId}/export", `${p}/export`)).status, 403);
    assert.deepEqual((await call(viewer, "GET", "/players/{userId}/rooms", `${p}/rooms`)).body.data, { rooms: [], unanswered: 0 });
    assert.equal((await call(admin, "GET", "/players/{userId}/rooms", `${none}/rooms`)).status, 404);
    assert.equal((await call(admin, "GET", "/players/{userId}/orders", `${p}/orders?state=delivered`)).status, 200);
    assert.equal((await call(admin, "GET", "/players/{userId}/orders", `${p}/orders?state=lost`)).status, 400);
    assert.equal((await call(admin, "GET", "/players/{userId}/orders", `${p}/orders?app=default`)).body.data.length, 1);
    assert.equal((await call(admin, "GET", "/players/{userId}/orders", `${p}/orders?app=no-such-game`)).status, 400);
    // The queue of orders that need a person: a paid order owed its delivery, a refused push, the coin spend above.
    const queueAction = (action: string) => `/orders/queue/{userId}/{id}/${action}`;
    const queued = (order: { id: string }, action: string) => `/orders/queue/${user.id}/${order.id}/${action}`;
    const wechatApp = (await h.services.payments.ledger.findByOrderId(user.id, "doc-1"))!;
    const owedId = crypto.randomUUID();
    const { order: owed } = await h.services.payments.ledger.create({ id: owedId, platform: "wechat", appId: wechatApp.appId, userId: user.id, openid, orderId: unique("owed"), kind: "item_purchase", itemId: "gem", coins: 600, platformOrderId: unique("trade"), env: 1, state: "paid", createdAt: new Date(Date.now() - 600_000).toISOString() });
    const refusedPush = await h.services.payments.operations.recordItemPurchase("wechat", wechatApp.appId, { openid, tradeNo: unique("trade"), itemId: "no-such-item", price: 600, env: 1 });
    const queue = await call(viewer, "GET", "/orders/queue");
    assert.deepEqual(queue.body.data.filter((e: { order: { userId: string } }) => e.order.userId === user.id).map((e: { reason: string }) => e.reason), ["push_refused", "delivery_waiting"], "a refused push whatever its age; a paid order past the settle time");
    assert.equal((await call(anonymous, "GET", "/orders/queue")).status, 401);
    assert.deepEqual((await call(admin, "POST", queueAction("retry"), queued(owed, "retry"))).body.data.state, "delivered");
    assert.equal((await call(admin, "POST", queueAction("retry"), queued(refusedPush, "retry"))).status, 409);
    assert.equal((await call(viewer, "POST", queueAction("record-refund"), queued(refusedPush, "record-refund"))).status, 403);
    assert.equal((await call(admin, "POST", queueAction("refund"), queued(refusedPush, "refund"))).status, 409, "no refund of a pushed purchase from here");
    assert.equal((await call(admin, "POST", queueAction("record-refund"), queued(owed, "record-refund"))).status, 400, "only a refused push");
    assert.equal((await call(admin, "POST", queueAction("record-refund"), queued(refusedPush, "record-refund"))).body.data.state, "refunded");
    assert.equal((await call(admin, "POST", queueAction("refund"), queued(wechatApp, "refund"))).body.data.state, "refunded");
    assert.equal((await call(admin, "GET", "/players/{userId}/page", `${p}/page?app=default`)).body.data.orders.length, 3);
    assert.equal((await call(admin, "GET", "/players/{userId}/page", `${none}/page`)).status, 404);
    assert.equal((await call(admin, "POST", "/players/{userId}/orders/{orderId}/refund", `${p}/orders/doc-1/refund`)).status, 200, "refunded already: the same answer");
    assert.equal((await call(admin, "POST", "/players/{userId}/orders/{orderId}/refund", `${p}/orders/nope/refund`)).status, 404);
    assert.equal((await call(admin, "POST", "/players/{userId}/orders/{orderId}/redeliver", `${p}/orders/doc-1/redeliver`)).status, 400, "a refunded order is not redelivered");
    assert.equal((await call(admin, "POST", "/players/{userId}/grants", `${p}/grants`, { platform: "wechat", coins: 3, grantId: "doc-grant" })).status, 200);
    assert.equal((await call(admin, "POST", "/players/{userId}/orders/{orderId}/redeliver", `${p}/orders/doc-grant/redeliver`)).status, 200, "a delivered grant answers as it is");
    assert.equal((await call(admin, "POST", "/players/{userId}/grants", `${p}/grants`, { platform: "wechat", coins: 4, grantId: "doc-grant" })).status, 409);
    assert.equal((await call(admin, "GET", "/orders/unsettled")).status, 200);
    assert.equal((await call(anonymous, "GET", "/orders/unsettled")).status, 401);
    assert.equal((await call(admin, "POST", "/players/{userId}/kick", `${p}/kick`)).status, 200);
    assert.equal((await call(admin, "POST", "/players/{userId}/kick", `${p}/kick`, undefined, { csrf: false })).status, 403);
    assert.equal((await call(admin, "POST", "/players/{userId}/disable", `${p}/disable`, { reason: "doc" })).status, 200);
    assert.equal((await call(admin, "POST", "/players/{userId}/disable", `${p}/disable`, {})).status, 400);
    assert.equal((await call(admin, "POST", "/players/{userId}/enable", `${p}/enable`)).status, 200);
    assert.equal((await call(viewer, "POST", "/players/{userId}/enable", `${p}/enable`)).status, 403);
    const muted = await call(admin, "POST", "/players/{userId}/mute", `${p}/mute`, { reason: "doc", durationSec: 60 });
    assert.deepEqual([muted.status, muted.body.data.mute?.reason], [200, "doc"]);
    assert.equal((await call(admin, "POST", "/players/{userId}/mute", `${p}/mute`, { reason: "doc", durationSec: 0 })).status, 400);
    assert.equal((await call(viewer, "POST", "/players/{userId}/mute", `${p}/mute`, { reason: "doc", durationSec: 60 })).status, 403);
    assert.deepEqual((await call(admin, "POST", "/players/{userId}/unmute", `${p}/unmute`)).body.data.mute, null);
    assert.equal((await call(admin, "POST", "/players/{userId}/unmute", `${none}/unmute`)).status, 404);
    assert.equal((await call(admin, "GET", "/health")).status, 200);
    assert.equal((await call(anonymous, "GET", "/health")).status, 401);
    assert.equal((await call(admin, "GET", "/apps")).status, 200);
    assert.equal((await call(anonymous, "GET", "/apps")).status, 401);
    assert.equal((await call(admin, "GET", "/audit", "/audit?action=order.refund")).status, 200);
    assert.equal((await call(viewer, "GET", "/audit")).status, 403);
    assert.equal((await call(admin, "GET", "/operators")).status, 200);
    assert.equal((await call(viewer, "GET", "/operators")).status, 403);
    assert.equal((await call(viewer, "POST", "/operators/{name}/end-sessions", `/operators/${viewerOp.name}/end-sessions`)).status, 403);
    assert.equal((await call(admin, "POST", "/operators/{name}/end-sessions", `/operators/${viewerOp.name}/end-sessions`)).status, 200);
    assert.equal((await viewer.call("GET", "/session")).status, 401, "the viewer's session ended");
    assert.equal((await call(admin, "POST", "/operators/{name}/role", `/operators/${viewerOp.name}/role`, { role: "support" })).status, 200);
    assert.equal((await call(admin, "POST", "/operators/{name}/role", `/operators/${viewerOp.name}/role`, { role: "root" })).status, 400);
    assert.equal((await call(admin, "POST", "/operators/{name}/disable", `/operators/${viewerOp.name}/disable`)).status, 200);
    assert.equal((await call(admin, "POST", "/operators/{name}/disable", `/operators/${adminOp.name}/disable`)).status, 400, "not yourself");
    assert.equal((await call(admin, "POST", "/operators/{name}/enable", `/operators/${viewerOp.name}/enable`)).status, 200);
    assert.equal((await call(admin, "POST", "/operators/{name}/enable", "/operators/nobody/enable")).status, 400);
    const added = await call(admin, "POST", "/operators", "/operators", { name: unique("doc"), role: "support", totp: true });
    assert.equal(added.status, 200);
    assert.equal((await call(admin, "POST", "/operators", "/operators", { name: added.body.data.operator.name, role: "support" })).status, 409);
    const enrolled = added.body.data.operator.name;
    const seed = new URL(added.body.data.totpUri).searchParams.get("secret")!;
    assert.equal((await call(admin, "POST", "/operators/{name}/totp/confirm", `/operators/${enrolled}/totp/confirm`, { code: "12345" })).status, 400);
    assert.equal((await call(admin, "POST", "/operators/{name}/totp/confirm", `/operators/${enrolled}/totp/confirm`, { code: totpAt(seed, Date.now()) })).status, 200);
    assert.equal((await call(admin, "POST", "/operators/{name}/reset", `/operators/${enrolled}/reset`, { totp: true })).status, 200);
    assert.equal((await call(admin, "POST", "/operators/{name}/reset", "/operators/nobody/reset", {})).status, 400);
    const rewards = "/rewards/players/{userId}";
    const rewardPath = `/rewards/players/${user.id}`;
    const gift = { currencies: { gems: 100 }, items: [{ itemId: "sword", count: 1 }], grantId: "doc-reward" };
    assert.ok((await admin.call("GET", "/screens")).body.data.some((x: { id: string }) => x.id === "rewards"), "the economy is wired: its screen is listed");
    assert.equal((await call(admin, "POST", rewards, "/rewards/players/no-such-player", gift)).status, 404);
    const typo = await call(admin, "POST", rewards, rewardPath, { ...gift, currencies: { gold: 100 }, items: [{ itemId: "poton", count: 1 }], grantId: "doc-typo" });
    assert.deepEqual([typo.status, typo.body.data.code, typo.body.data.currencies, typo.body.data.items], [422, "not_in_catalog", ["gold"], ["poton"]]);
    assert.match(typo.body.message, /currency "gold", item "poton"/, "names the ids");
    const first = await call(admin, "POST", rewards, rewardPath, gift);
    assert.deepEqual([first.status, first.body.data.granted, first.body.data.balances], [200, true, { gems: 100 }]);
    const again = await call(admin, "POST", rewards, rewardPath, gift);
    assert.deepEqual([again.body.data.granted, again.body.data.balances], [false, { gems: 100 }], "once per grant id");
    assert.equal((await call(admin, "POST", rewards, rewardPath, { grantId: "empty" })).status, 400);
    assert.equal((await call(anonymous, "POST", rewards, rewardPath, gift)).status, 401);
    // The replay is on record as a repeat, not as a second grant.
    const audit = await admin.call("GET", `/audit?action=reward.grant&target=${user.id}`);
    assert.deepEqual(audit.body.data.map((e: { outcome: string }) => e.outcome).sort(), ["ok", "refused", "repeated", "refused", "started", "started", "started", "started"].sort());
    assert.deepEqual((await admin.call("GET", `/audit?action=reward.grant&target=${user.id}&outcome=ok`)).body.data.map((e: { detail: { granted?: boolean } }) => e.detail.granted), [true]);
    // A debit through the ledger, once per debit id, never below zero.
    const debit = "/rewards/players/{userId}/debit";
    const debitPath = `${rewardPath}/debit`;
    const take = { currencies: { gems: 40 }, items: [{ itemId: "sword", count: 1 }], debitId: "doc-debit", reason: "granted by mistake" };
    assert.equal((await call(admin, "POST", debit, debitPath, { ...take, currencies: { gems: 500 }, debitId: "doc-too-much" })).status, 402);
    assert.equal((await call(admin, "POST", debit, debitPath, { ...take, currencies: { poton: 1 } })).status, 422);
    assert.equal((await call(viewer, "POST", debit, debitPath, take)).status, 401, "the viewer's session ended above");
    const taken = await call(admin, "POST", debit, debitPath, take);
    assert.deepEqual([taken.status, taken.body.data.debited, taken.body.data.balances, taken.body.data.items], [200, true, { gems: 60 }, [{ itemId: "sword", count: 0 }]]);
    const retaken = await call(admin, "POST", debit, debitPath, take);
    assert.deepEqual([retaken.body.data.debited, retaken.body.data.balances], [false, { gems: 60 }], "once per debit id");
    const debits = await admin.call("GET", `/audit?action=reward.debit&target=${user.id}`);
    assert.deepEqual(debits.body.data.filter((e: { outcome: string }) => e.outcome !== "started").map((e: { outcome: string }) => e.outcome).sort(), ["ok", "refused", "refused", "repeated"]);

    // Economy: the wallet after the reward above, the catalog and its next version.
    const reader = new ConsoleClient(h.baseUrl);
    assert.equal((await reader.signIn(await addOperator(h.config, unique("doc-reader"), "viewer"), OPERATOR_PASSWORD)).status, 200);
    const wallet = await call(reader, "GET", "/economy/players/{userId}", `/economy/players/${user.id}?app=default`);
    assert.deepEqual([wallet.status, wallet.body.data.balances], [200, { gems: 60 }]);
    assert.equal(wallet.body.data.items.find((i: { itemId: string }) => i.itemId === "sword"), undefined, "debited");
    assert.equal((await call(admin, "GET", "/economy/players/{userId}", `/economy/players/${user.id}?app=nope`)).status, 400);
    const catalog = await call(reader, "GET", "/economy/catalog", "/economy/catalog?app=default");
    assert.equal(catalog.status, 200);
    assert.equal((await call(anonymous, "GET", "/economy/catalog")).status, 401);
    const next = { currencies: [{ currencyId: "gold" }, { currencyId: "gems" }] };
    assert.equal((await call(reader, "POST", "/economy/catalog", "/economy/catalog", { catalog: next })).status, 403);
    assert.equal((await call(admin, "POST", "/economy/catalog", "/economy/catalog", { catalog: { items: [{ itemId: "" }] } })).status, 422);
    const saved = await call(admin, "POST", "/economy/catalog", "/economy/catalog", { expectedVersion: catalog.body.data.version, catalog: next });
    assert.deepEqual([saved.status, saved.body.data.version], [200, catalog.body.data.version + 1]);
    assert.equal((await call(admin, "POST", "/economy/catalog", "/economy/catalog", { expectedVersion: catalog.body.data.version, catalog: next })).status, 409, "a version already replaced");
    assert.equal((await admin.call("GET", "/economy/catalog")).body.data.version, catalog.body.data.version + 1);
    const versions = await call(reader, "GET", "/economy/catalog/versions", "/economy/catalog/versions?app=default");
    assert.deepEqual(versions.body.data.versions.map((v: { version: number }) => v.version), [catalog.body.data.version + 1]);
    assert.equal((await call(reader, "GET", "/economy/catalog/versions", "/economy/catalog/versions?app=nope")).status, 400);
    assert.equal((await call(reader, "GET", "/economy/catalog/versions/{version}", "/economy/catalog/versions/0?app=default")).status, 200);
    assert.equal((await call(reader, "GET", "/economy/catalog/versions/{version}", "/economy/catalog/versions/99?app=default")).status, 404);
    const restore = "/economy/catalog/versions/{version}/restore";
    assert.equal((await call(reader, "POST", restore, "/economy/catalog/versions/0/restore", {})).status, 403);
    assert.equal((await call(admin, "POST", restore, "/economy/catalog/versions/99/restore", {})).status, 404);
    assert.equal((await call(admin, "POST", restore, "/economy/catalog/versions/0/restore", { expectedVersion: 0 })).status, 409);
    const back = await call(admin, "POST", restore, `/economy/catalog/versions/${catalog.body.data.version + 1}/restore`, {});
    assert.deepEqual([back.status, back.body.data.version], [200, catalog.body.data.version + 2]);
    // Mail: sent once per mail id; a viewer may not.
    const mail = { userId: user.id, title: "Sorry", currencies: { gold: 5 }, mailId: unique("doc-mail") };
    assert.equal((await call(reader, "POST", "/mail", "/mail", mail)).status, 403);
    assert.equal((await call(admin, "POST", "/mail", "/mail", { ...mail, currencies: {} })).status, 400);
    assert.equal((await call(admin, "POST", "/mail", "/mail", { ...mail, expiresAt: "2001-01-01T00:00:00Z" })).status, 400);
    const sent = await call(admin, "POST", "/mail", "/mail", mail);
    assert.deepEqual([sent.status, sent.body.data.created], [200, true]);
    assert.equal((await call(admin, "POST", "/mail", "/mail", mail)).body.data.created, false);
    // The disable above ended the player's sessions: a new login.
    const relogin = await h.get(`/api/minigame/wechat/login?jsCode=${code}.2`);
    assert.equal(relogin.body.data.user.id, user.id);
    const player = { authorization: `Bearer ${relogin.body.data.token}` };
    const listed = await h.get("/api/mail", player);
    assert.ok(listed.body.data.mail.some((m: { mailId: string }) => m.mailId === mail.mailId));
    // Analytics: the daily and retention reads of the rollups.
    const today = h.services.analytics.rollups.today();
    for (const read of ["/analytics/daily", "/analytics/retention"]) {
      assert.equal((await call(reader, "GET", read, `${read}?from=${today}&to=${today}&app=default`)).status, 200);
      assert.equal((await call(reader, "GET", read, `${read}?from=${today}`)).status, 400);
    }
    const experiment = "/analytics/experiments/{experimentId}";
    const results = await call(reader, "GET", experiment, "/analytics/experiments/example-reward?app=default");
    assert.deepEqual([results.status, results.body.data.variants.map((v: { variant: string }) => v.variant)], [200, ["control", "double"]]);
    assert.equal((await call(reader, "GET", experiment, "/analytics/experiments/no-such-test")).status, 404);
    // Leaderboards: boards, the player's record, remove, ban.
    assert.equal((await h.request("POST", "/api/leaderboards/highscores/scores", { score: 42 }, player)).status, 200);
    const described = await call(reader, "GET", "/leaderboards", "/leaderboards?app=default");
    assert.deepEqual(described.body.data.boards.map((b: { id: string; records: number }) => [b.id, b.records]), [["highscores", 1]]);
    assert.equal((await call(admin, "GET", "/leaderboards", "/leaderboards?app=nope")).status, 400);
    const records = await call(reader, "GET", "/leaderboards/players/{userId}", `/leaderboards/players/${user.id}`);
    assert.deepEqual(records.body.data.records.map((r: { board: string; score: number }) => [r.board, r.score]), [["highscores", 42]]);
    assert.equal((await call(admin, "GET", "/leaderboards/players/{userId}", "/leaderboards/players/no-such-player")).status, 404);
    const board = (action: string) => `/leaderboards/{boardId}/players/{userId}/${action}`;
    assert.equal((await call(reader, "POST", board("remove"), `/leaderboards/highscores/players/${user.id}/remove`, {})).status, 403);
    assert.equal((await call(admin, "POST", board("remove"), `/leaderboards/nope/players/${user.id}/remove`, {})).status, 404);
    assert.deepEqual((await call(admin, "POST", board("remove"), `/leaderboards/highscores/players/${user.id}/remove`, {})).body.data.removed, true);
    assert.equal((await call(admin, "POST", board("ban"), `/leaderboards/nope/players/${user.id}/ban`, {})).status, 404);
    const banned = await call(admin, "POST", board("ban"), `/leaderboards/highscores/players/${user.id}/ban`, { app: "default" });
    assert.deepEqual([banned.status, banned.body.data.banned, banned.body.data.removed], [200, true, false]);
    assert.equal((await h.request("POST", "/api/leaderboards/highscores/scores", { score: 50 }, player)).status, 403, "banned from the board");
    const trail = await admin.call("GET", "/audit?action=board.ban&outcome=ok");
    assert.equal(trail.body.data[0].target, user.id);
    assert.equal((await call(reader, "POST", board("unban"), `/leaderboards/highscores/players/${user.id}/unban`, {})).status, 403);
    assert.equal((await call(admin, "POST", board("unban"), `/leaderboards/nope/players/${user.id}/unban`, {})).status, 404);
    const unbanned = await call(admin, "POST", board("unban"), `/leaderboards/highscores/players/${user.id}/unban`, { app: "default" });
    assert.deepEqual([unbanned.status, unbanned.body.data.banned], [200, false]);
    assert.equal((await h.request("POST", "/api/leaderboards/highscores/scores", { score: 51 }, player)).status, 200, "scores are taken again");
    // Cloud saves: a player's objects, an edit from the version shown (a stale one refused), a delete.
    const firstSave = await h.request("PUT", "/api/saves/progress/slot1", { value: { level: 3 } }, player);
    assert.equal(firstSave.status, 201, JSON.stringify(firstSave.body));
    const saves = await call(reader, "GET", "/saves/players/{userId}", `/saves/players/${user.id}?collection=progress`);
    assert.deepEqual(saves.body.data.objects.map((o: { key: string; value: unknown }) => [o.key, o.value]), [["slot1", { level: 3 }]]);
    assert.equal((await call(reader, "GET", "/saves/players/{userId}", `/saves/players/${user.id}?collection=%24bad`)).status, 400);
    const saveAction = (action: string) => `/saves/players/{userId}/{collection}/{key}/${action}`;
    const slot = (action: string) => `/saves/players/${user.id}/progress/slot1/${action}`;
    assert.equal((await call(reader, "POST", saveAction("edit"), slot("edit"), { version: 1, value: { level: 9 } })).status, 403);
    const edited = await call(admin, "POST", saveAction("edit"), slot("edit"), { version: 1, value: { level: 40 } });
    assert.deepEqual([edited.status, edited.body.data.version], [200, 2]);
    const stale = await call(admin, "POST", saveAction("edit"), slot("edit"), { version: 1, value: { level: 1 } });
    assert.deepEqual([stale.status, stale.body.data.code, stale.body.data.version], [409, "version_conflict", 2]);
    assert.deepEqual((await h.get("/api/saves/progress/slot1", player)).body.data.value, { level: 40 });
    assert.equal((await call(admin, "POST", saveAction("delete"), `/saves/players/${user.id}/progress/none/delete`, { version: 1 })).status, 404);
    assert.equal((await call(admin, "POST", saveAction("delete"), slot("delete"), { version: 2 })).body.data.deleted, true);
    assert.equal((await admin.call("GET", "/audit?action=save.edit&outcome=ok")).body.data[0].target, user.id);
    // Customer service: the player's message pushed in by the simulator, the conversation, a reply.
    await fetch(`${h.simulator.url}/__simulator/support-message`, { method: "POST", body: JSON.stringify({ platform: "wechat", openid, text: "where are my gems", notifyUrl: `${h.baseUrl}/api/minigame/wechat/gift-push` }) });
    const waitingFor = async () => (await reader.call("GET", "/support/conversations")).body.data.conversations.some((c: { userId: string }) => c.userId === user.id);
    for (let i = 0; i < 100 && !(await waitingFor()); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal((await call(reader, "GET", "/support/conversations", "/support/conversations?app=default")).body.data.conversations[0].userId, user.id);
    assert.equal((await call(reader, "GET", "/support/conversations", "/support/conversations?app=nope")).status, 400);
    const conversation = await call(reader, "GET", "/support/players/{userId}", `/support/players/${user.id}`);
    assert.deepEqual(conversation.body.data.messages.map((m: { text: string }) => m.text), ["where are my gems"]);
    assert.equal((await call(reader, "GET", "/support/players/{userId}", `/support/players/${user.id}?app=nope`)).status, 400);
    const replyRoute = "/support/players/{userId}/reply";
    assert.equal((await call(reader, "POST", replyRoute, `/support/players/${user.id}/reply`, { text: "hi", replyId: "r-doc" })).status, 403);
    const replied = await call(admin, "POST", replyRoute, `/support/players/${user.id}/reply`, { text: "Back in a minute", replyId: "r-doc" });
    assert.deepEqual([replied.status, replied.body.data.sent], [200, true]);
    assert.equal((await admin.call("GET", "/audit?action=support.reply&outcome=ok")).body.data[0].target, user.id);
    const unbanTrail = await admin.call("GET", `/audit?action=board.unban&target=${user.id}`);
    assert.deepEqual(unbanTrail.body.data.map((e: { outcome: string }) => e.outcome).sort(), ["ok", "refused", "refused"]);
    // A board reset from the console: the period ends now, the player's record stays with it.
    const reset = "/leaderboards/{boardId}/reset";
    assert.equal((await call(reader, "POST", reset, "/leaderboards/highscores/reset", {})).status, 403);
    assert.equal((await call(admin, "POST", reset, "/leaderboards/nope/reset", {})).status, 404);
    const before = described.body.data.boards[0].period.seq;
    const resetDone = await call(admin, "POST", reset, "/leaderboards/highscores/reset", { app: "default" });
    assert.deepEqual([resetDone.status, resetDone.body.data.started, resetDone.body.data.period.seq], [200, true, before + 1]);
    assert.equal((await h.get("/api/leaderboards/highscores/me?period=previous", player)).body.data.score, 51);
    const resetTrail = await admin.call("GET", "/audit?action=board.reset&target=highscores");
    assert.deepEqual(resetTrail.body.data.map((e: any) => [e.outcome, e.detail.period]).filter((e: unknown[]) => e[0] === "ok"), [["ok", before + 1]]);
    // LiveOps: the running definitions, a check, a publish, the history, a version, a rollback, an experiment started and stopped.
    const lo = await call(reader, "GET", "/liveops", "/liveops?app=default");
    assert.equal(lo.status, 200, JSON.stringify(lo.body));
    assert.equal((await call(reader, "GET", "/liveops", "/liveops?app=nope")).status, 400);
    // The catalog uploaded above has no sword or potion for the example sale to put on sale.
    const defs = { ...lo.body.data.definitions, events: [] };
    const checked = await call(reader, "POST", "/liveops/check", "/liveops/check", { app: "default", definitions: { flags: [{ key: "x", default: 1, audiences: [{ audienceId: "none", value: 2 }] }] } });
    assert.deepEqual([checked.status, checked.body.data.problems.length], [200, 1]);
    assert.equal((await call(reader, "POST", "/liveops/check", "/liveops/check", { app: "nope", definitions: {} })).status, 400);
    assert.equal((await call(reader, "POST", "/liveops/publish", "/liveops/publish", { app: "default", definitions: defs })).status, 403);
    const refusedPublish = await call(admin, "POST", "/liveops/publish", "/liveops/publish", { app: "default", definitions: { flags: [{ key: "welcome_text", default: 5 }] } });
    assert.deepEqual([refusedPublish.status, refusedPublish.body.data.code], [422, "liveops_invalid"]);
    const published = await call(admin, "POST", "/liveops/publish", "/liveops/publish", { app: "default", expectedVersion: lo.body.data.version, definitions: defs });
    assert.deepEqual([published.status, published.body.data.version], [200, lo.body.data.version + 1], JSON.stringify(published.body));
    const loHistory = await call(reader, "GET", "/liveops/versions", "/liveops/versions?app=default");
    assert.equal(loHistory.body.data.current, published.body.data.version);
    assert.equal((await call(reader, "GET", "/liveops/versions", "/liveops/versions?limit=0")).status, 400);
    assert.equal((await call(reader, "GET", "/liveops/versions/{version}", "/liveops/versions/0?app=default")).status, 200);
    assert.equal((await call(reader, "GET", "/liveops/versions/{version}", "/liveops/versions/999?app=default")).status, 404);
    const rollback = "/liveops/versions/{version}/rollback";
    assert.equal((await call(admin, "POST", rollback, "/liveops/versions/999/rollback", { app: "default" })).status, 404);
    assert.equal((await call(admin, "POST", rollback, `/liveops/versions/${published.body.data.version}/rollback`, { app: "default" })).status, 200);
    const experimentAction = (action: string) => `/liveops/experiments/{experimentId}/${action}`;
    assert.equal((await call(admin, "POST", experimentAction("stop"), "/liveops/experiments/example-reward/stop", { app: "default" })).status, 400, "not running");
    assert.equal((await call(admin, "POST", experimentAction("start"), "/liveops/experiments/nope/start", { app: "default" })).status, 400);
    const started = await call(admin, "POST", experimentAction("start"), "/liveops/experiments/example-reward/start", { app: "default" });
    assert.deepEqual([started.status, started.body.data.running], [200, true]);
    assert.equal((await call(admin, "POST", experimentAction("stop"), "/liveops/experiments/example-reward/stop", { app: "default", expectedVersion: 0 })).status, 409);
    assert.equal((await call(admin, "POST", experimentAction("stop"), "/liveops/experiments/example-reward/stop", { app: "default" })).status, 200);
    assert.equal((await call(admin, "POST", "/players/{userId}/erase", `${p}/erase`, { confirm: "no" })).status, 400);
    assert.equal((await call(admin, "POST", "/players/{userId}/erase", `${p}/erase`, { confirm: user.username })).status, 200);
    assert.equal((await call(admin, "DELETE", "/session", "/session", undefined, { csrf: false })).status, 403);
    assert.equal((await call(admin, "DELETE", "/session")).status, 200);

    assert.deepEqual(conformance.unexercised("/console/"), []);
  });
});
