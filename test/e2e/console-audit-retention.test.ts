/**
 * The server with the console on removes audit entries older than CONSOLE_AUDIT_RETENTION_DAYS
 * at start (and hourly after, test/unit/audit-retention.test.ts); 0 keeps them all.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createOperatorStore } from "../../src/adapters/store/create-operator-store";
import { startHarness } from "../support/app-harness";

describe("console audit retention in the server", function () {
  this.timeout(60_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-audit-retention-"));
  const config = { kind: "sqlite" as const, path: path.join(dir, "users.sqlite"), synchronous: "FULL" as const };
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function targets(): Promise<string[]> {
    const store = await createOperatorStore(config);
    try {
      return (await store.searchAudit({ action: "cli.find" })).map((e) => e.target!).sort();
    } finally {
      await store.close();
    }
  }

  it("removes what is older than the retention at start; 0 keeps everything", async () => {
    const store = await createOperatorStore(config);
    try {
      for (const [target, days] of [["older", 90], ["newer", 10]] as const) {
        await store.appendAudit({ id: target, at: new Date(Date.now() - days * 86_400_000).toISOString(), actor: "lead", via: "cli", action: "cli.find", target, outcome: "ok", detail: {} });
      }
    } finally {
      await store.close();
    }
    const keeping = await startHarness({ env: { SQLITE_PATH: config.path, CONSOLE_AUDIT_RETENTION_DAYS: "0" } });
    await new Promise((r) => setTimeout(r, 300));
    await keeping.close();
    assert.deepEqual(await targets(), ["newer", "older"], "0 days: nothing removed");

    const pruning = await startHarness({ env: { SQLITE_PATH: config.path, CONSOLE_AUDIT_RETENTION_DAYS: "30" } });
    try {
      let left = await targets();
      for (let i = 0; i < 50 && left.includes("older"); i++) {
        await new Promise((r) => setTimeout(r, 100));
        left = await targets();
      }
      assert.deepEqual(left, ["newer"]);
    } finally {
      await pruning.close();
    }
  });
});
