import assert from "node:assert/strict";
import fs from "node:fs";
import { platformDefinitions } from "../../src/platforms/registry";
import { README, renderPlatformDocs, withPlatformDocs } from "../../scripts/platform-docs";

describe("README platform section", () => {
  it("is what the registry generates (run `npm run docs:platforms` after changing a platform)", () => {
    const readme = fs.readFileSync(README, "utf8");
    assert.equal(withPlatformDocs(readme), readme);
  });

  it("names every registered platform's routes and settings", () => {
    const section = renderPlatformDocs();
    for (const p of platformDefinitions) {
      assert.ok(section.includes(`/api/minigame/${p.name}/login`), p.name);
      assert.ok(section.includes(`${p.name.toUpperCase()}_APP_SECRET`), p.name);
    }
  });
});
