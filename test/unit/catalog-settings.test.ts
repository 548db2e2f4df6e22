/**
 * Catalogs from the settings: CATALOG_FILE and an app's `catalog` in APPS_FILE are checked with the
 * other settings, every problem at once (file, app and item named), at start and by config:check.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigError, parseConfig } from "../../src/config/config";
import { checkCatalog, exampleCatalog } from "../../src/core/catalog";
import { checkSettings, formatCheck } from "../../src/ops/settings-check";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-catalog-settings-"));
let files = 0;
function file(content: unknown): string {
  const name = path.join(dir, `f-${files++}.json`);
  fs.writeFileSync(name, typeof content === "string" ? content : JSON.stringify(content));
  return name;
}
function problemsOf(env: Record<string, string>): string[] {
  try {
    parseConfig(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.problems;
  }
  assert.fail("expected a ConfigError");
}

const broken = {
  currencies: [{ currencyId: "gold" }, { currencyId: "gold" }],
  items: [
    { itemId: "sword", name: "Sword", kind: "consumable", prices: { coins: 30, silver: 2 } },
    { itemId: "chest", name: "Chest", kind: "bundle", prices: { gold: 10 } },
    { itemId: "cape", name: "Cape", kind: "durable", prices: { gold: 5 }, limit: 3, sale: { from: "2026-02-01T00:00:00Z", until: "2026-01-01T00:00:00Z" } },
    { itemId: "sword", name: "Sword 2", kind: "consumable", prices: { gold: 1 }, grants: { items: [{ itemId: "ghost", count: 1 }], currencies: { gems: 1 } } },
  ],
  ads: [{ adUnitId: "ad-1", grants: { currencies: { gold: 5 } }, dailyCap: 0 }],
};

describe("catalog settings", () => {
  it("reports every problem of CATALOG_FILE at once, naming the file and the item", () => {
    const name = file({ ...broken, ads: [] });
    const problems = problemsOf({ CATALOG_FILE: name }).join("\n");
    for (const expected of [
      "currencies[1] (gold): is declared twice",
      "items[0] (sword).prices.silver: unknown currency",
      "items[1] (chest): a bundle must say what it grants",
      "items[2] (cape).limit: a durable is owned once",
      "items[2] (cape).sale: from must be before until",
      "items[3] (sword): itemId is listed twice",
      "items[3] (sword).grants.items: unknown item ghost",
      "items[3] (sword).grants.currencies.gems: unknown currency",
    ]) {
      assert.ok(problems.includes(expected), `missing: ${expected}\nin: ${problems}`);
    }
    assert.ok(problems.startsWith(`CATALOG_FILE: ${name}`));
  });

  it("reports an entry's shape problems together with every other problem, and unreadable or invalid JSON files", () => {
    const problems = problemsOf({ CATALOG_FILE: file(broken) }).join("\n");
    assert.match(problems, /ads\[0\] \(ad-1\)\.dailyCap: /);
    assert.match(problems, /items\[0\] \(sword\)\.prices\.silver: unknown currency/, "a bad entry hides no other problem");
    assert.match(problems, /items\[1\] \(chest\): a bundle must say what it grants/);
    assert.match(problemsOf({ CATALOG_FILE: file("{oops") }).join(), /is not valid JSON/);
    assert.match(problemsOf({ CATALOG_FILE: path.join(dir, "missing.json") }).join(), /cannot read .*ENOENT/);
    assert.match(problemsOf({ CATALOG_FILE: file({ catalogs: { nosuchapp: { items: [] } } }) }).join(), /names app "nosuchapp", which is not served/);
  });

  it("checks an app's catalog in APPS_FILE with the apps, and config:check lists every problem", () => {
    const apps = file({ apps: [{ key: "puzzle", wechat: { appId: "wx_puzzle", appSecret: "puzzle-secret-value-1234" }, catalog: { items: [{ itemId: "x", name: "X", kind: "bundle", prices: { coins: 1 } }] } }] });
    const problems = problemsOf({ APPS_FILE: apps, CATALOG_FILE: file({ items: [{ itemId: "y", name: "", kind: "weird" }] }) }).join("\n");
    assert.match(problems, /APPS_FILE: .*apps\[0\]\.catalog \(app puzzle\): items\[0\] \(x\): a bundle must say what it grants/);
    assert.match(problems, /CATALOG_FILE: .*items\[0\] \(y\)\.name: is required/);
    assert.match(problems, /items\[0\] \(y\)\.kind/);
    const check = checkSettings({ NODE_ENV: "development", CATALOG_FILE: file({ items: [{ itemId: "z", name: "Z", kind: "consumable", prices: { gold: 1 } }] }) });
    assert.equal(check.ok, false);
    assert.match(formatCheck(check), /items\[0\] \(z\)\.prices\.gold: unknown currency/);
    const ok = checkSettings({ NODE_ENV: "development", APPS_FILE: file({ apps: [{ key: "puzzle", wechat: { appId: "wx_puzzle", appSecret: "puzzle-secret-value-1234" } }] }) });
    assert.ok(ok.ok, ok.ok ? "" : ok.problems.join("; "));
    assert.match(formatCheck(ok), /catalogs: default \(7 items, 1 ad units, 1 gift packs\)/);
  });

  it("takes catalogs per app: the file's, the apps file's, else the example one outside production", () => {
    const good = { currencies: [{ currencyId: "gold" }], items: [{ itemId: "hat", name: "Hat", kind: "durable", prices: { gold: 5 } }] };
    const apps = file({ apps: [{ key: "puzzle", wechat: { appId: "wx_puzzle", appSecret: "puzzle-secret-value-1234" }, catalog: good }] });
    const config = parseConfig({ APPS_FILE: apps });
    assert.deepEqual(config.economy.catalogs.puzzle.items[0].grants, { items: [{ itemId: "hat", count: 1 }] });
    assert.deepEqual(config.economy.catalogs.default, exampleCatalog());
    const fromFile = parseConfig({ CATALOG_FILE: file(good) });
    assert.deepEqual(fromFile.economy.catalogs.default.items.map((i) => i.itemId), ["hat"]);
  });

  it("the example catalog has what the contract promises", () => {
    const example = exampleCatalog();
    const kinds = new Set(example.items.map((i) => i.kind));
    assert.deepEqual([...kinds].sort(), ["bundle", "consumable", "durable"]);
    assert.ok(example.items.some((i) => i.kind === "bundle" && i.prices.coins && Object.keys(i.grants.currencies ?? {}).length > 0));
    assert.ok(example.items.some((i) => Object.keys(i.prices).some((k) => k !== "coins")));
    assert.deepEqual(example.ads.map((a) => a.adUnitId), ["adunit-example"]);
    assert.ok("catalog" in checkCatalog(example, "example"));
  });
});
