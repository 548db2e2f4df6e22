import assert from "node:assert/strict";
import crypto from "node:crypto";
import jwt from "jsonwebtoken";
import { AppError } from "../../src/core/errors";
import { gradeOf, TokenSigner } from "../../src/services/token-signer";

const SECRET = "a-very-long-test-secret-that-is-32-bytes-or-more";
const subject = { userId: crypto.randomUUID(), app: "default", username: "mg_wechat_abc", email: "wechat_abc@players.invalid", sid: "sid1", grade: "full" as const };

function signer(overrides: Partial<ConstructorParameters<typeof TokenSigner>[0]> = {}) {
  return new TokenSigner({ secret: SECRET, previousSecrets: [], accessTtlSec: 7200, refreshTtlSec: 86400, ...overrides });
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AppError, `expected AppError, got ${err}`);
    return err.code;
  }
  assert.fail("expected an error");
}

function b64(obj: unknown): string {
  return Buffer.from(JSON.stringify(obj)).toString("base64url");
}

describe("TokenSigner", () => {
  it("issues HS256 JWTs with typ JWT, a kid, and the spec's claims", () => {
    const { token, claims } = signer().signAccess(subject);
    const decoded = jwt.decode(token, { complete: true })!;
    assert.equal(decoded.header.alg, "HS256");
    assert.equal(decoded.header.typ, "JWT");
    assert.ok(decoded.header.kid);
    const payload = decoded.payload as Record<string, unknown>;
    assert.equal(payload.userId, subject.userId);
    assert.equal(payload.username, subject.username);
    assert.equal(payload.email, subject.email);
    assert.equal(payload.sid, "sid1");
    assert.equal(payload.exp, claims.iat + 7200);
    assert.equal(typeof payload.jti, "string");
  });

  it("never issues the same token twice in the same second", () => {
    const s = signer({ now: () => 1_700_000_000_000 });
    const tokens = new Set(Array.from({ length: 100 }, () => s.signAccess(subject).token));
    assert.equal(tokens.size, 100);
  });

  it("verifies its own tokens and rejects expired ones as token_expired", () => {
    let now = 1_700_000_000_000;
    const s = signer({ now: () => now });
    const { token } = s.signAccess(subject);
    assert.equal(s.verifyAccess(token).userId, subject.userId);
    now += 7201 * 1000;
    assert.equal(codeOf(() => s.verifyAccess(token)), "token_expired");
  });

  it("remembers a verified token's text, yet checks its expiry on every use and remembers nothing else", () => {
    let now = 1_700_000_000_000;
    const s = signer({ now: () => now, accessTtlSec: 30 });
    const { token } = s.signAccess(subject);
    const first = s.verifyAccess(token);
    assert.equal(s.verifyAccess(token), first, "the second verification answers the remembered claims");
    assert.ok(Object.isFrozen(first), "shared claims cannot be changed by one holder");
    // A different text (a signature bit flipped) is not the remembered one: checked, and refused.
    const [header, payload, sig] = token.split(".");
    const flipped = `${header}.${payload}.${sig.slice(0, -2)}${sig.at(-2) === "A" ? "B" : "A"}${sig.at(-1)}`;
    assert.equal(codeOf(() => s.verifyAccess(flipped)), "token_invalid");
    assert.equal(codeOf(() => s.verifyAccess(flipped)), "token_invalid", "a refused text is never remembered");
    now += 31 * 1000; // past exp, while the text is still remembered
    assert.equal(codeOf(() => s.verifyAccess(token)), "token_expired");
    const forgetful = signer({ verifiedMemoEntries: 0 });
    const issued = forgetful.signAccess(subject).token;
    assert.notEqual(forgetful.verifyAccess(issued), forgetful.verifyAccess(issued));
  });

  it("honours nbf in a token made elsewhere with our key, remembered or not", () => {
    let now = 1_700_000_000_000;
    const s = signer({ now: () => now });
    const kid = (jwt.decode(s.signAccess(subject).token, { complete: true })!.header.kid)!;
    const nowSec = now / 1000;
    const early = jwt.sign({ ...subject, jti: "j1", iat: nowSec, exp: nowSec + 600, nbf: nowSec + 10 }, SECRET, { algorithm: "HS256", keyid: kid });
    assert.equal(codeOf(() => s.verifyAccess(early)), "token_invalid");
    now += 11_000;
    assert.equal(s.verifyAccess(early).userId, subject.userId);
    const timely = jwt.sign({ ...subject, jti: "j2", iat: nowSec, exp: nowSec + 600, nbf: nowSec + 20 }, SECRET, { algorithm: "HS256", keyid: kid, noTimestamp: true });
    now += 10_000; // nbf passed: verified and remembered
    assert.equal(s.verifyAccess(timely).userId, subject.userId);
    assert.equal(s.verifyAccess(timely).userId, subject.userId);
  });

  it("rejects alg none, other secrets, RS256 headers, tampered payloads and garbage as token_invalid", () => {
    const s = signer();
    const { token } = s.signAccess(subject);
    const [header, payload, sig] = token.split(".");
    const kid = (jwt.decode(token, { complete: true })!.header as { kid: string }).kid;

    const none = `${b64({ alg: "none", typ: "JWT", kid })}.${payload}.`;
    const otherSecret = jwt.sign({ ...subject, jti: "x" }, "another-secret-another-secret-another-secret", {
      algorithm: "HS256",
      header: { alg: "HS256", kid },
    });
    const rs256 = `${b64({ alg: "RS256", typ: "JWT", kid })}.${payload}.${sig}`;
    const tampered = `${header}.${b64({ ...(jwt.decode(token) as object), userId: crypto.randomUUID() })}.${sig}`;
    for (const bad of [none, otherSecret, rs256, tampered, "garbage", "", "a.b.c", `${header}.${payload}`]) {
      assert.equal(codeOf(() => s.verifyAccess(bad)), "token_invalid", bad);
    }
  });

  it("rejects a token without userId even when correctly signed", () => {
    const s = signer();
    const kid = (jwt.decode(s.signAccess(subject).token, { complete: true })!.header as { kid: string }).kid;
    const key = crypto.createSecretKey(Buffer.from(SECRET));
    const { userId: _u, ...noUser } = subject;
    const token = jwt.sign({ ...noUser, jti: "j" }, key, { algorithm: "HS256", header: { alg: "HS256", kid }, expiresIn: 60 });
    assert.equal(codeOf(() => s.verifyAccess(token)), "token_invalid");
  });

  it("agrees with jsonwebtoken: a token it signs with our key and kid verifies", () => {
    const s = signer();
    const kid = (jwt.decode(s.signAccess(subject).token, { complete: true })!.header as { kid: string }).kid;
    const key = crypto.createSecretKey(Buffer.from(SECRET));
    const token = jwt.sign({ ...subject, jti: "j" }, key, { algorithm: "HS256", header: { alg: "HS256", kid }, expiresIn: 60 });
    assert.equal(s.verifyAccess(token).userId, subject.userId);
  });

  it("agrees with jsonwebtoken the other way: jsonwebtoken verifies the access and refresh tokens it signs", () => {
    const s = signer();
    const { token, claims } = s.signAccess(subject);
    const verified = jwt.verify(token, crypto.createSecretKey(Buffer.from(SECRET)), { algorithms: ["HS256"] }) as Record<string, unknown>;
    assert.deepEqual(verified, { ...claims });
    const refreshKey = crypto.createSecretKey(crypto.createHmac("sha256", SECRET).update("refresh-token-signing-key").digest());
    const refresh = s.signRefresh({ userId: subject.userId, app: "default", sid: "sid1", authTime: 123, grade: "full" });
    assert.deepEqual(jwt.verify(refresh.token, refreshKey, { algorithms: ["HS256"] }), { ...refresh.claims });
    assert.throws(() => jwt.verify(refresh.token, crypto.createSecretKey(Buffer.from(SECRET)), { algorithms: ["HS256"] }), /invalid signature/);
    const header = jwt.decode(token, { complete: true })!.header;
    assert.deepEqual(Object.keys(header), ["alg", "typ", "kid"]);
  });

  it("rejects structural tricks: extra parts, padded signatures, missing or non-numeric exp, future nbf, array payloads", () => {
    const s = signer();
    const { token } = s.signAccess(subject);
    const kid = (jwt.decode(token, { complete: true })!.header as { kid: string }).kid;
    const key = crypto.createSecretKey(Buffer.from(SECRET));
    const signRaw = (payload: unknown) => {
      const head = b64({ alg: "HS256", typ: "JWT", kid });
      const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
      return `${head}.${body}.${crypto.createHmac("sha256", key).update(`${head}.${body}`).digest("base64url")}`;
    };
    const now = Math.floor(Date.now() / 1000);
    const claims = { ...subject, jti: "j", iat: now };
    for (const bad of [
      `${token}.extra`,
      `${token}=`,
      `${token}!`,
      signRaw({ ...claims }),
      signRaw({ ...claims, exp: String(now + 60) }),
      signRaw({ ...claims, exp: now + 60, nbf: now + 30 }),
      signRaw([claims]),
    ]) {
      assert.equal(codeOf(() => s.verifyAccess(bad)), "token_invalid", bad.slice(-20));
    }
    assert.equal(s.verifyAccess(signRaw({ ...claims, exp: now + 60, nbf: now - 1 })).userId, subject.userId);
  });

  it("keeps access and refresh tokens apart", () => {
    const s = signer();
    const access = s.signAccess(subject).token;
    const refresh = s.signRefresh({ userId: subject.userId, app: "default", sid: "sid1", grade: "anonymous" }).token;
    assert.equal(s.verifyRefresh(refresh).sid, "sid1");
    assert.equal(codeOf(() => s.verifyAccess(refresh)), "token_invalid");
    assert.equal(codeOf(() => s.verifyRefresh(access)), "refresh_token_invalid");
  });

  it("carries the session grade in both tokens and reads a token without one as anonymous", () => {
    const s = signer();
    assert.equal(s.verifyAccess(s.signAccess(subject).token).grade, "full");
    assert.equal(s.verifyRefresh(s.signRefresh({ userId: subject.userId, app: "default", sid: "sid1", grade: "anonymous" }).token).grade, "anonymous");
    const legacy = jwt.sign({ userId: subject.userId, username: "u", email: "e", sid: "s", jti: "j" }, SECRET, {
      algorithm: "HS256",
      expiresIn: 60,
      keyid: crypto.createHash("sha256").update(`kid:${SECRET}`).digest("base64url").slice(0, 10),
    });
    assert.equal(gradeOf(s.verifyAccess(legacy)), "anonymous");
    const forged = jwt.sign({ userId: subject.userId, username: "u", email: "e", sid: "s", jti: "j", grade: "root" }, SECRET, {
      algorithm: "HS256",
      expiresIn: 60,
      keyid: crypto.createHash("sha256").update(`kid:${SECRET}`).digest("base64url").slice(0, 10),
    });
    assert.equal(codeOf(() => s.verifyAccess(forged)), "token_invalid");
  });

  it("accepts tokens signed with a previous secret after rotation, and signs with the new one", () => {
    const old = signer();
    const oldToken = old.signAccess(subject).token;
    const rotated = signer({ secret: "the-new-secret-which-is-also-32-bytes-long!!", previousSecrets: [SECRET] });
    assert.equal(rotated.verifyAccess(oldToken).userId, subject.userId);
    const fresh = rotated.signAccess(subject).token;
    assert.equal(codeOf(() => old.verifyAccess(fresh)), "token_invalid");
  });
});
