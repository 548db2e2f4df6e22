/** A tiny suite for test/unit/summary-reporter.test.ts: not matched by the test glob on purpose. */
import assert from "node:assert/strict";
import { backends } from "./backends";

for (const backend of backends) {
  describe(`fixture — ${backend.name}`, () => {
    it("runs", () => assert.ok(backend.name));
  });
}
