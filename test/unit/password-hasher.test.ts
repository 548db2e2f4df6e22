import assert from "node:assert/strict";
import { hashPassword, hashRandomPassword, randomPassword, verifyPassword } from "../../src/services/password-hasher";

describe("password hashing", () => {
  it("hashes chosen passwords with salted scrypt and verifies only the right one", async () => {
    const hash = await hashPassword("correct horse");
    assert.match(hash, /^scrypt\$32768\$8\$1\$/);
    assert.notEqual(await hashPassword("correct horse"), hash, "a fresh salt each time");
    assert.equal(await verifyPassword("correct horse", hash), true);
    assert.equal(await verifyPassword("correct horsE", hash), false);
  });

  it("stores random passwords with a salted fast hash that still verifies", async () => {
    const password = randomPassword();
    assert.ok(password.length >= 43, "256 bits");
    const hash = hashRandomPassword(password);
    assert.match(hash, /^sha256\$/);
    assert.equal(await verifyPassword(password, hash), true);
    assert.equal(await verifyPassword(password + "x", hash), false);
  });

  it("rejects malformed stored hashes instead of throwing", async () => {
    for (const stored of ["", "scrypt$1", "sha256$", "md5$abc$def"]) assert.equal(await verifyPassword("x", stored), false);
  });
});
