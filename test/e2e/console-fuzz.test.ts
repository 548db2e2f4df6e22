/**
 * Hostile input on every console JSON route (as the API's edge tests do for /api): no 5xx, always
 * the envelope; and no secret (passwords, TOTP seed, session cookie, CSRF token, session keys, app
 * secrets) in any console answer or log line, at trace level.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { startSimulator } from "../../src/simulator/simulator-server";
import { startHarness, type Harness } from "../support/app-harness";
import { addOperator, ConsoleClient, OPERATOR_PASSWORD, type ConsoleResponse } from "../support/console";
import { simulatorPaymentEnv } from "../support/payments";

const ROUTES: Array<[string, string]> = [
  ["GET", "/session"],
  ["POST", "/session"],
  ["DELETE", "/session"],
  ["POST", "/password"],
  ["GET", "/screens"],
  ["GET", "/players"],
  ["GET", "/players/:userId"],
  ["GET", "/players/:userId/export"],
  ["GET", "/players/:userId/orders"],
  ["GET", "/players/:userId/rooms"],
  ["POST", "/players/:userId/kick"],
  ["POST", "/players/:userId/disable"],
  ["POST", "/players/:userId/enable"],
  ["POST", "/players/:userId/mute"],
  ["POST", "/players/:userId/unmute"],
  ["POST", "/players/:userId/erase"],
  ["POST", "/players/:userId/orders/:orderId/refund"],
  ["POST", "/players/:userId/orders/:orderId/redeliver"],
  ["POST", "/players/:userId/grants"],
  ["GET", "/orders/unsettled"],
  ["GET", "/health"],
  ["GET", "/apps"],
  ["GET", "/audit"],
  ["GET", "/operators"],
  ["POST", "/operators/:name/disable"],
  ["POST", "/operators/:name/enable"],
  ["POST", "/operators/:name/role"],
  ["POST", "/operators/:name/end-sessions"],
  ["POST", "/rewards/players/:userId"],
  ["POST", "/rewards/players/:userId/debit"],
  ["GET", "/economy/players/:userId"],
  ["GET", "/economy/catalog"],
  ["POST", "/economy/catalog"],
  ["GET", "/economy/catalog/versions"],
  ["GET", "/economy/catalog/versions/:version"],
  ["POST", "/economy/catalog/versions/:version/restore"],
  ["POST", "/mail"],
  ["GET", "/leaderboards"],
  ["GET", "/leaderboards/players/:userId"],
  ["POST", "/leaderboards/:boardId/players/:userId/remove"],
  ["POST", "/leaderboards/:boardId/players/:userId/ban"],
  ["POST", "/leaderboards/:boardId/players/:userId/unban"],
  ["POST", "/leaderboards/:boardId/reset"],
];

/** A seeded generator, so a failure replays. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  const strings = ["", " ", "x", "%00", "%2e%2e%2f", "'; drop table users; --", "\u0000", "💥".repeat(50), "a".repeat(5000), "{\"$gt\":\"\"}", "__proto__", "constructor", "-1", "1e309", "NaN", "true", "null"];
  const values = (depth = 0): unknown =>
    pick([
      () => pick(strings),
      () => Math.floor(next() * 2 ** 53) * (next() < 0.5 ? -1 : 1),
      () => next() * 1e308,
      () => null,
      () => next() < 0.5,
      () => (depth < 3 ? Array.from({ length: Math.floor(next() * 4) }, () => values(depth + 1)) : []),
      () => (depth < 3 ? objectOf(depth + 1) : {}),
    ])();
  const objectOf = (depth = 0): Record<string, unknown> => {
    const keys = ["name", "password", "totp", "currentPassword", "newPassword", "reason", "until", "confirm", "platform", "app", "coins", "grantId", "role", "__proto__", "q", "state", "title", "currencies", "items", "catalog", "expectedVersion", "userId", "mailId", "expiresAt"];
    return Object.fromEntries(Array.from({ length: Math.floor(next() * 6) }, () => [pick(keys), values(depth)]));
  };
  const segment = () => encodeURIComponent(pick(strings)) || "x";
  const query = () => {
    const keys = ["q", "app", "state", "actor", "action", "target", "outcome", "since", "until", "limit", "format", "q[]", "state[$ne]"];
    return Array.from({ length: Math.floor(next() * 4) }, () => `${pick(keys)}=${encodeURIComponent(pick(strings).slice(0, 300))}`).join("&");
  };
  const body = (): string | undefined =>
    pick([() => undefined, () => JSON.stringify(objectOf()), () => JSON.stringify(values()), () => "{not json", () => "[]", () => `{"reason":"${"r".repeat(20_000)}"}`, () => '"\\ud800"'])();
  return { next, pick, segment, query, body };
}

describe("console JSON routes under hostile input, and secrets", function () {
  this.timeout(120_000);
  let h: Harness;
  const answers: ConsoleResponse[] = [];

  before(async () => {
    const simulator = await startSimulator({ port: 0 });
    h = await startHarness({ simulator, env: { ...simulatorPaymentEnv(simulator.url), LOG_LEVEL: "trace" } });
  });
  after(async () => {
    await h?.close();
    await h?.simulator.close();
  });

  it("answers every hostile request with a 4xx envelope, signed in or not, never a 5xx", async () => {
    const admin = await addOperator(h.config, `fuzz${crypto.randomBytes(3).toString("hex")}`, "admin");
    const signedIn = new ConsoleClient(h.baseUrl);
    await signedIn.signIn(admin, OPERATOR_PASSWORD);
    const anonymous = new ConsoleClient(h.baseUrl);
    const g = generator(Number(process.env.FUZZ_SEED ?? 38));
    const problems: string[] = [];
    for (let i = 0; i < 600; i++) {
      const [method, template] = g.pick(ROUTES);
      const path = template.replace(/:\w+/g, () => g.segment());
      const query = g.query();
      const client = g.next() < 0.8 ? signedIn : anonymous;
      // Never sign the fuzzing operator out or disable it: the rest of the run needs its session.
      if (client === signedIn && (template === "/session" && method === "DELETE" || template.startsWith("/operators/"))) continue;
      const contentType = g.pick(["application/json", "application/json", "text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1"]);
      const body = method === "GET" ? undefined : g.body();
      const res = await client.call(method, `${path}${query ? `?${query}` : ""}`, body, { headers: body === undefined ? {} : { "content-type": contentType } });
      answers.push(res);
      const envelope = typeof res.body === "object" && res.body !== null && typeof res.body.success === "boolean";
      if (res.status >= 500 || !envelope) problems.push(`${method} ${path}?${query} ${body?.slice(0, 80)} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    }
    if (process.env.FUZZ_REPORT) console.log(answers.reduce((m: Record<string, number>, a) => ((m[`${a.status} ${a.body?.data?.code ?? ""}`] = (m[`${a.status} ${a.body?.data?.code ?? ""}`] ?? 0) + 1), m), {}));
    assert.deepEqual(problems, []);
    assert.equal((await signedIn.call("GET", "/session")).status, 200, "the session survived the run");
  });

  it("never shows a password, TOTP seed, session cookie, CSRF token, session key or app secret", async () => {
    const op = await addOperator(h.config, `keys${crypto.randomBytes(3).toString("hex")}`, "admin", { totp: true });
    const initial = op.password;
    const client = new ConsoleClient(h.baseUrl);
    answers.push(await client.signIn(op, OPERATOR_PASSWORD));
    const login = await h.get(`/api/minigame/wechat/login?jsCode=secret${Date.now()}.1`);
    const userId = login.body.data.user.id;
    for (const path of [`/players?q=${login.body.data.openid}`, `/players/${userId}`, `/players/${userId}/export`, `/players/${userId}/orders`, "/apps", "/health", "/operators", "/audit"]) {
      const res = await client.call("GET", path);
      assert.equal(res.status, 200, path);
      answers.push(res);
    }
    answers.push(await client.call("POST", `/players/${userId}/grants`, { platform: "wechat", coins: 5, grantId: "g-secret" }));
    answers.push(await client.call("POST", `/players/${userId}/kick`));
    const page = await (await fetch(`${h.baseUrl}/console`)).text();

    const secrets: Record<string, string | undefined> = {
      "initial password": initial,
      "chosen password": OPERATOR_PASSWORD,
      "TOTP seed": op.totpSecret,
      "session cookie": client.cookie.split("=")[1],
      "player session key": login.body.data.session_key,
      "WeChat app secret": h.config.platforms.wechat.appSecret,
      "Douyin app secret": h.config.platforms.douyin.appSecret,
      "JWT secret": h.config.jwt.secret,
    };
    const answersText = answers.map((a) => (typeof a.body === "string" ? a.body : JSON.stringify(a.body))).join("\n");
    const logText = h.logs.join("");
    assert.ok(logText.includes("operator_audit"), "the console did log");
    for (const [what, value] of Object.entries(secrets)) {
      if (!value) continue;
      assert.equal(answersText.includes(value), false, `${what} in a console answer`);
      assert.equal(logText.includes(value), false, `${what} in the log`);
      assert.equal(page.includes(value), false, `${what} in the page`);
    }
    // The CSRF token is handed to its own session and nowhere else: never logged.
    assert.equal(logText.includes(client.csrf), false, "CSRF token in the log");
  });
});
