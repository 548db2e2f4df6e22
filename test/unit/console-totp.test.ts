/** TOTP against RFC 6238's test vectors (SHA-1), Base32 round trips, the drift window and the audit CSV. */
import assert from "node:assert/strict";
import { auditCsv } from "../../src/services/console/audit-log";
import { base32Decode, base32Encode, hotp, totpAt, verifyTotp } from "../../src/services/console/totp";

describe("console TOTP (RFC 6238) and audit export", () => {
  const seed = Buffer.from("12345678901234567890");

  it("matches RFC 6238 appendix B for SHA-1 (8 digits)", () => {
    const vectors: Array<[number, string]> = [
      [59, "94287082"],
      [1111111109, "07081804"],
      [1111111111, "14050471"],
      [1234567890, "89005924"],
      [2000000000, "69279037"],
      [20000000000, "65353130"],
    ];
    for (const [seconds, code] of vectors) assert.equal(hotp(seed, Math.floor(seconds / 30), 8), code, `T=${seconds}`);
  });

  it("Base32 round-trips (RFC 4648 vector) and 6-digit codes verify within one step of drift only", () => {
    assert.equal(base32Encode(Buffer.from("foobar")), "MZXW6YTBOI");
    assert.deepEqual(base32Decode("MZXW6YTBOI"), Buffer.from("foobar"));
    const secret = base32Encode(seed);
    const now = 1_700_000_000_000;
    const code = totpAt(secret, now);
    assert.equal(verifyTotp(secret, code, now), Math.floor(now / 30_000));
    assert.notEqual(verifyTotp(secret, code, now + 30_000), null, "one step late is accepted");
    assert.equal(verifyTotp(secret, code, now + 90_000), null, "three steps late is not");
    assert.equal(verifyTotp(secret, "12345", now), null);
    assert.equal(verifyTotp(secret, "abcdef", now), null);
  });

  it("exports CSV that a spreadsheet cannot run as a formula", () => {
    const csv = auditCsv([{ id: "1", at: "2026-01-01T00:00:00.000Z", actor: "ops", via: "console", action: "player.disable", target: "=HYPERLINK(1)", outcome: "ok", detail: { reason: 'a "quoted", reason' } }]);
    const [, row] = csv.split("\r\n");
    assert.match(row, /,'=HYPERLINK\(1\),/);
    assert.match(row, /"{""reason"":""a \\""quoted\\"", reason""}"$/);
  });
});
