/**
 * `npm run admin -- operator add|list|disable|enable|reset` as an operator runs it (a child process
 * on the server's settings), and every CLI command recorded in the console's audit trail.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createOperatorStore } from "../../src/adapters/store/create-operator-store";
import { TEST_JWT_SECRET } from "../support/app-harness";
import { runAdmin } from "../support/admin-cli";

describe("admin operator commands and the CLI's audit trail", function () {
  this.timeout(90_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-admin-ops-"));
  const sqlitePath = path.join(dir, "users.sqlite");
  const env = { ...process.env, NODE_ENV: "development", JWT_SECRET: TEST_JWT_SECRET, LOG_LEVEL: "warn", SQLITE_PATH: sqlitePath };
  const admin = (...args: string[]) => runAdmin(env, ...args);
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("adds with a one-time password and TOTP link, lists, disables, enables and resets; refusals are audited", async () => {
    const added = await admin("operator", "add", "Dana", "--role", "support", "--totp", "--by", "lead");
    assert.equal(added.status, 0, added.stderr);
    const created = JSON.parse(added.stdout);
    assert.equal(created.operator.name, "dana");
    assert.equal(created.operator.mustChangePassword, true);
    assert.match(created.initialPassword, /^[A-Za-z0-9]{20}$/);
    assert.match(created.totpUri, /^otpauth:\/\/totp\/Arena%20console%3Adana\?secret=[A-Z2-7]+&/);
    assert.equal("passwordHash" in created.operator || "totpSecret" in created.operator, false);

    assert.equal((await admin("operator", "add", "dana", "--role", "viewer")).status, 1, "the name is taken");
    assert.equal((await admin("operator", "add", "erin")).status, 2, "a role is required");
    assert.equal((await admin("operator", "fly", "erin")).status, 2);

    const list = JSON.parse((await admin("operator", "list")).stdout);
    assert.deepEqual(list.map((o: { name: string; role: string; totp: boolean }) => [o.name, o.role, o.totp]), [["dana", "support", true]]);
    assert.equal(JSON.parse((await admin("operator", "disable", "dana")).stdout).disabled, true);
    assert.equal(JSON.parse((await admin("operator", "enable", "dana")).stdout).disabled, false);
    const reset = JSON.parse((await admin("operator", "reset", "dana")).stdout);
    assert.notEqual(reset.initialPassword, created.initialPassword);
    assert.equal(reset.totpUri, undefined, "the seed stays unless --totp asks for a new one");

    // A player command is recorded too, with its outcome (no such user: refused).
    assert.equal((await admin("find", "nobody-at-all", "--by", "lead")).status, 1);

    const store = await createOperatorStore({ kind: "sqlite", path: sqlitePath, synchronous: "FULL" });
    try {
      const entries = await store.searchAudit({});
      const seen = entries.map((e) => `${e.via} ${e.actor} ${e.action} ${e.target} ${e.outcome}`);
      assert.ok(seen.includes("cli lead operator.add dana ok"), seen.join("\n"));
      assert.ok(seen.some((s) => /^cli \S+ operator\.add dana refused$/.test(s)));
      assert.ok(seen.some((s) => /^cli \S+ operator\.disable dana ok$/.test(s)));
      assert.ok(seen.some((s) => /^cli \S+ operator\.reset dana ok$/.test(s)));
      assert.ok(seen.includes("cli lead cli.find nobody-at-all refused"));
      assert.equal(JSON.stringify(entries).includes(created.initialPassword), false, "no password in the audit");
    } finally {
      await store.close();
    }
  });

  it("operator role changes a role; the last active admin is never demoted or disabled, which the role command repairs", async () => {
    // A database whose one operator is no admin (made so before this rule, or by hand): the role command recovers it.
    assert.equal((await admin("operator", "add", "solo", "--role", "support")).status, 0);
    assert.equal((await admin("operator", "role", "solo")).status, 2, "a role is required");
    assert.equal((await admin("operator", "role", "solo", "root")).status, 2);
    const promoted = await admin("operator", "role", "solo", "admin", "--by", "lead");
    assert.equal(promoted.status, 0, promoted.stderr);
    assert.equal(JSON.parse(promoted.stdout).role, "admin");
    for (const change of [["role", "solo", "viewer"], ["disable", "solo"]]) {
      const refused = await admin("operator", ...change);
      assert.equal(refused.status, 1, `${change.join(" ")}: ${refused.stdout}`);
      assert.match(refused.stderr, /last active admin/);
    }
    assert.equal((await admin("operator", "add", "second", "--role", "admin")).status, 0);
    assert.equal(JSON.parse((await admin("operator", "role", "solo", "viewer")).stdout).role, "viewer", "another admin exists now");
    assert.equal((await admin("operator", "disable", "second")).status, 1, "and that one is now the last");
    const store = await createOperatorStore({ kind: "sqlite", path: sqlitePath, synchronous: "FULL" });
    try {
      const roles = (await store.searchAudit({ action: "operator.role" })).map((e) => `${e.actor} ${e.target} ${e.outcome} ${e.detail.role ?? e.detail.code}`);
      assert.ok(roles.includes("lead solo ok admin"), roles.join("\n"));
      assert.ok(roles.some((r) => /solo refused last_admin$/.test(r)), roles.join("\n"));
    } finally {
      await store.close();
    }
  });

  it("audit prune removes entries older than the retention (or --days), keeps the rest, and is itself audited", async () => {
    const store = await createOperatorStore({ kind: "sqlite", path: sqlitePath, synchronous: "FULL" });
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
    try {
      for (const [id, days] of [["ancient", 800], ["old", 400], ["recent", 30]] as const) {
        await store.appendAudit({ id: `prune-${id}`, at: daysAgo(days), actor: "lead", via: "cli", action: "cli.find", target: id, outcome: "ok", detail: {} });
      }
    } finally {
      await store.close();
    }
    const kept = async () => {
      const s = await createOperatorStore({ kind: "sqlite", path: sqlitePath, synchronous: "FULL" });
      try {
        return (await s.searchAudit({ action: "cli.find" })).map((e) => e.target).filter((t) => ["ancient", "old", "recent"].includes(t ?? ""));
      } finally {
        await s.close();
      }
    };
    assert.equal((await admin("audit", "prune", "--days", "-1")).status, 2);
    assert.equal((await admin("audit", "shred")).status, 2);
    const byDefault = await admin("audit", "prune", "--by", "lead");
    assert.equal(byDefault.status, 0, byDefault.stderr);
    assert.equal(JSON.parse(byDefault.stdout).removed, 2, "365 days by default");
    assert.deepEqual(await kept(), ["recent"]);
    const keepAll = await admin("audit", "prune", "--days", "0");
    assert.deepEqual(JSON.parse(keepAll.stdout).removed, 0);
    assert.equal(JSON.parse((await admin("audit", "prune", "--days", "7")).stdout).removed, 1);
    assert.deepEqual(await kept(), []);
    const s = await createOperatorStore({ kind: "sqlite", path: sqlitePath, synchronous: "FULL" });
    try {
      const pruned = await s.searchAudit({ action: "audit.prune", actor: "lead" });
      assert.deepEqual(pruned.map((e) => [e.outcome, e.detail.days, e.detail.removed]), [["ok", 365, 2]]);
    } finally {
      await s.close();
    }
  });
});
