/**
 * The catalog's history in the console, on every store: every version an admin stores is kept with
 * who and when; any version can be read; restoring one stores its content as the next version (the
 * game serves it at once), audited, refused for a viewer, a missing version or a stale choice.
 */
import assert from "node:assert/strict";
import { startHarness, type Harness } from "../support/app-harness";
import { storeBackends } from "../support/backends";
import { addOperator, ConsoleClient, OPERATOR_PASSWORD } from "../support/console";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;
const crown = (price: number) => ({ currencies: [{ currencyId: "gold" }], items: [{ itemId: "crown", name: "Crown", kind: "durable", prices: { gold: price } }] });

for (const backend of storeBackends) describe(`console catalog history — ${backend.name}`, function () {
  this.timeout(60_000);
  let h: Harness;
  let release: (() => Promise<void>) | undefined;

  before(async () => {
    const prepared = await backend.prepare();
    release = prepared.release;
    h = await startHarness({ env: prepared.env });
  });
  after(async () => {
    await h?.close();
    await release?.();
  });

  async function signedIn(role: "viewer" | "admin") {
    const op = await addOperator(h.config, unique(role), role);
    const client = new ConsoleClient(h.baseUrl);
    assert.equal((await client.signIn(op, OPERATOR_PASSWORD)).status, 200);
    return { op, client };
  }

  it("keeps every version with who and when; restores an older one as the next version, audited", async () => {
    const { op, client: admin } = await signedIn("admin");
    const { op: viewerOp, client: viewer } = await signedIn("viewer");
    const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("hist")}.1`);
    const player = { authorization: `Bearer ${login.body.data.token}` };
    const start = (await admin.call("GET", "/economy/catalog/versions?app=default")).body.data;
    assert.deepEqual([start.current, start.versions], [0, []], "nothing stored yet: the settings' catalog");

    for (const [expectedVersion, price] of [[0, 9], [1, 12]]) {
      assert.equal((await admin.call("POST", "/economy/catalog", { expectedVersion, catalog: crown(price) })).status, 200);
    }
    const history = (await viewer.call("GET", "/economy/catalog/versions?app=default")).body.data;
    assert.equal(history.current, 2);
    assert.deepEqual(history.versions.map((v: { version: number; by: string }) => [v.version, v.by]), [[2, `console:${op.name}`], [1, `console:${op.name}`]]);
    assert.ok(history.versions.every((v: { at: string }) => Date.now() - Date.parse(v.at) < 60_000));
    assert.deepEqual((await viewer.call("GET", "/economy/catalog/versions?app=default&before=2")).body.data.versions.map((v: { version: number }) => v.version), [1]);
    const first = await viewer.call("GET", "/economy/catalog/versions/1?app=default");
    assert.deepEqual([first.status, first.body.data.catalog.items[0].prices], [200, { gold: 9 }]);
    assert.equal((await viewer.call("GET", "/economy/catalog/versions/0?app=default")).body.data.by, null, "0: the settings' catalog");
    assert.equal((await viewer.call("GET", "/economy/catalog/versions/7?app=default")).body.data.code, "catalog_version_not_found");

    const refused = await viewer.call("POST", "/economy/catalog/versions/1/restore", { app: "default" });
    assert.deepEqual([refused.status, refused.body.data.code], [403, "console_role_forbidden"]);
    assert.equal((await admin.call("POST", "/economy/catalog/versions/7/restore", { app: "default" })).status, 404);
    assert.equal((await admin.call("POST", "/economy/catalog/versions/1/restore", { app: "default", expectedVersion: 1 })).status, 409, "version 2 was stored since");
    const restored = await admin.call("POST", "/economy/catalog/versions/1/restore", { app: "default", expectedVersion: 2 });
    assert.deepEqual([restored.status, restored.body.data.version, restored.body.data.catalog.items[0].prices], [200, 3, { gold: 9 }], JSON.stringify(restored.body));
    const served = (await h.get("/api/catalog", player)).body.data;
    assert.deepEqual([served.version, served.items[0].prices], [3, { gold: 9 }], "the game serves the restored content");
    const after = (await admin.call("GET", "/economy/catalog/versions?app=default")).body.data;
    assert.deepEqual(after.versions.map((v: { version: number }) => v.version), [3, 2, 1], "history is added to, never rewritten");
    assert.equal((await admin.call("GET", "/economy/catalog/versions/2?app=default")).body.data.catalog.items[0].prices.gold, 12);

    const audit = (await admin.call("GET", "/audit?action=catalog.restore")).body.data as Array<{ actor: string; outcome: string; detail: Record<string, unknown> }>;
    assert.deepEqual(audit.map((e) => [e.actor === viewerOp.name ? "viewer" : "admin", e.outcome, e.detail.code ?? e.detail.restoredFrom]).map(String).sort(), [
      "admin,ok,1",
      "admin,refused,catalog_version_not_found",
      "admin,refused,version_conflict",
      "viewer,refused,console_role_forbidden",
    ]);
    assert.equal(audit.find((e) => e.outcome === "ok")?.detail.version, 3);
  });
});
