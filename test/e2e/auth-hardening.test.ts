import assert from "node:assert/strict";
import crypto from "node:crypto";
import jwt from "jsonwebtoken";
import { startHarness, TEST_JWT_SECRET, type Harness } from "../support/app-harness";
import { createTestDatabase } from "../support/postgres";
import { testDatabaseUrl, testRedisUrl, uniquePrefix } from "../support/services";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const b64 = (obj: unknown) => Buffer.from(JSON.stringify(obj)).toString("base64url");

describe("JWT attacks on protected routes", () => {
  let h: Harness;
  let token: string;
  before(async () => {
    h = await startHarness();
    token = (await h.get(`/api/minigame/wechat/login?jsCode=${unique("victim")}`)).body.data.token;
  });
  after(() => h?.close());

  it("refuses each forged or broken token with a 401 and a stable code, never a 500", async () => {
    const [header, payload, signature] = token.split(".");
    const decodedHeader = JSON.parse(Buffer.from(header, "base64url").toString());
    const claims = jwt.decode(token) as Record<string, unknown>;
    const { userId: _drop, ...withoutUserId } = claims;
    const forgedKey = crypto.createSecretKey(Buffer.from("attacker-chosen-secret-of-sufficient-length"));
    const realKey = crypto.createSecretKey(Buffer.from(TEST_JWT_SECRET));
    const attacks: Record<string, [string, string]> = {
      "alg none": [`${b64({ ...decodedHeader, alg: "none" })}.${payload}.`, "token_invalid"],
      "another secret": [
        jwt.sign(claims, forgedKey, { algorithm: "HS256", header: { alg: "HS256", kid: decodedHeader.kid } }),
        "token_invalid",
      ],
      "an RS256 header": [`${b64({ ...decodedHeader, alg: "RS256" })}.${payload}.${signature}`, "token_invalid"],
      "a tampered payload": [`${header}.${b64({ ...claims, userId: crypto.randomUUID() })}.${signature}`, "token_invalid"],
      "an expired token": [
        jwt.sign({ ...claims, iat: 1_000_000, exp: 1_000_060 }, realKey, { algorithm: "HS256", header: { alg: "HS256", kid: decodedHeader.kid } }),
        "token_expired",
      ],
      "a missing userId": [
        jwt.sign(withoutUserId, realKey, { algorithm: "HS256", header: { alg: "HS256", kid: decodedHeader.kid } }),
        "token_invalid",
      ],
      garbage: ["%%%garbage%%%", "token_invalid"],
      "a huge token": ["a".repeat(5000), "token_invalid"],
    };
    for (const [label, [forged, code]] of Object.entries(attacks)) {
      const res = await h.get("/api/users/me", bearer(forged));
      assert.equal(res.status, 401, label);
      assert.equal(res.body.data.code, code, label);
    }
    assert.equal((await h.get("/api/users/me", bearer(token))).status, 200, "the genuine token still works");
  });

  it("refuses a refresh token used as an access token and vice versa", async () => {
    const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("swap")}`);
    const asAccess = await h.get("/api/users/me", bearer(login.body.data.refreshToken));
    assert.equal(asAccess.body.data.code, "token_invalid");
    const asRefresh = await h.request("POST", "/api/auth/refresh", { refreshToken: login.body.data.token });
    assert.equal(asRefresh.body.data.code, "refresh_token_invalid");
  });
});

describe("rate limits", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ env: { RATE_LIMIT_IP_MAX: "3", RATE_LIMIT_ACCOUNT_MAX: "2", RATE_LIMIT_WINDOW_SEC: "60" } });
  });
  after(() => h?.close());

  it("limits registration per IP with 429 rate_limited and Retry-After", async () => {
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 4; i++) {
      last = await h.request("POST", "/api/auth/register", { username: unique("r"), email: `${unique("r")}@example.com`, password: "password1" });
      statuses.push(last.status);
    }
    assert.deepEqual(statuses, [201, 201, 201, 429]);
    assert.equal(last!.body.data.code, "rate_limited");
    const retryAfter = Number(last!.headers.get("retry-after"));
    assert.ok(retryAfter >= 1 && retryAfter <= 60);
  });

  it("limits password attempts per account across different client addresses", async () => {
    const name = unique("acct");
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      // Without TRUST_PROXY the forwarded address is ignored, so the IP bucket is shared too:
      // the login bucket is separate from the register bucket, so 3 attempts fit the IP limit.
      const res = await h.request("POST", "/api/auth/login", { username: name, password: "wrong password" }, { "x-forwarded-for": `10.0.0.${i}` });
      statuses.push(res.status);
    }
    assert.deepEqual(statuses, [401, 401, 429]);
  });

  it("counts forwarded addresses as distinct clients only with TRUST_PROXY", async () => {
    const proxied = await startHarness({ env: { RATE_LIMIT_IP_MAX: "1", TRUST_PROXY: "1" }, simulator: h.simulator });
    try {
      const a = await proxied.get(`/api/minigame/wechat/login?jsCode=${unique("ip")}`, { "x-forwarded-for": "203.0.113.1" });
      const b = await proxied.get(`/api/minigame/wechat/login?jsCode=${unique("ip")}`, { "x-forwarded-for": "203.0.113.2" });
      const c = await proxied.get(`/api/minigame/wechat/login?jsCode=${unique("ip")}`, { "x-forwarded-for": "203.0.113.2" });
      assert.deepEqual([a.status, b.status, c.status], [200, 200, 429]);
    } finally {
      await proxied.close();
    }
  });
});

(testDatabaseUrl && testRedisUrl ? describe : describe.skip)("JWT secret rotation (PostgreSQL + Redis, shared across restarts)", () => {
  it("accepts tokens of a previous secret after rotation and refuses them once it is dropped", async () => {
    const db = await createTestDatabase(testDatabaseUrl!);
    const shared = { DATABASE_URL: db.url, REDIS_URL: testRedisUrl!, CACHE_KEY_PREFIX: uniquePrefix("rotation") };
    const oldSecret = "old-secret-old-secret-old-secret-old-secret";
    const newSecret = "new-secret-new-secret-new-secret-new-secret";
    try {
      const before = await startHarness({ env: { ...shared, JWT_SECRET: oldSecret } });
      const login = await before.get(`/api/minigame/wechat/login?jsCode=${unique("rot")}`);
      await before.close();

      const rotated = await startHarness({ env: { ...shared, JWT_SECRET: newSecret, JWT_PREVIOUS_SECRETS: oldSecret } });
      try {
        assert.equal((await rotated.get("/api/users/me", bearer(login.body.data.token))).status, 200);
        const refreshed = await rotated.request("POST", "/api/auth/refresh", { refreshToken: login.body.data.refreshToken });
        assert.equal(refreshed.status, 200);
        assert.equal((await rotated.get("/api/users/me", bearer(refreshed.body.data.token))).status, 200);
      } finally {
        await rotated.close();
      }

      const dropped = await startHarness({ env: { ...shared, JWT_SECRET: newSecret } });
      try {
        const res = await dropped.get("/api/users/me", bearer(login.body.data.token));
        assert.equal(res.body.data.code, "token_invalid");
      } finally {
        await dropped.close();
      }
    } finally {
      await db.drop();
    }
  });
});
