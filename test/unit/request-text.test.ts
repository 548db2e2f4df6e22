/**
 * The text rule every request schema gets (src/api/validate.ts): a string that is not valid
 * Unicode (a lone UTF-16 surrogate) is refused with 400 wherever it is, key or value, so what the
 * stores keep is what was sent; and a nickname's BOM is refused, not trimmed away.
 */
import assert from "node:assert/strict";
import { AppError } from "../../src/core/errors";
import { parseInput } from "../../src/api/validate";
import { loginBody, profilePatchBody } from "../../src/api/schemas";
import { spendBody } from "../../src/api/payment-schemas";
import { storagePutBody } from "../../src/api/social-schemas";

function refused(run: () => unknown): { field: string; message: string }[] {
  try {
    run();
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    assert.deepEqual([err.status, err.code], [400, "invalid_request"]);
    return (err.data as { fields?: { field: string; message: string }[] }).fields ?? [];
  }
  return assert.fail("expected a 400");
}

describe("request text: valid Unicode only, refused rather than altered", () => {
  it("refuses a lone surrogate in any text field of any schema, with the field named", () => {
    const spend = refused(() => parseInput(spendBody, { orderId: "o-1", itemId: "\ud800", coins: 10 }));
    assert.ok(spend.some((f) => f.field === "itemId" && /Unicode/.test(f.message)), JSON.stringify(spend));
    refused(() => parseInput(loginBody, { username: "alice\udc00", password: "password1" }));
    refused(() => parseInput(profilePatchBody, { nickname: "a\ud83d", version: 1 }));
  });

  it("refuses a lone surrogate in an object key too", () => {
    const problems = refused(() => parseInput(storagePutBody, { kvList: [{ key: "k", value: "v" }], extra: { "k\ud800": "v" } }));
    assert.ok(problems.some((f) => /Unicode/.test(f.message)), JSON.stringify(problems));
    refused(() => parseInput(storagePutBody, { kvList: [{ key: "k\udfff", value: "v" }] }));
  });

  it("accepts surrogate pairs (emoji) as the text they are", () => {
    assert.equal(parseInput(profilePatchBody, { nickname: "ace 🎮", version: 1 }).nickname, "ace 🎮");
  });

  it("refuses a nickname with a leading or trailing BOM instead of trimming it away, and still trims spaces", () => {
    refused(() => parseInput(profilePatchBody, { nickname: "\ufeffbom", version: 1 }));
    refused(() => parseInput(profilePatchBody, { nickname: "bom\ufeff", version: 1 }));
    assert.equal(parseInput(profilePatchBody, { nickname: "  bom  ", version: 1 }).nickname, "bom");
  });
});
