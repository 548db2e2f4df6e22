import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { platformDefinitions } from "../../src/platforms/registry";
import { PLATFORM_DOCS, renderPlatformDocs, withPlatformDocs } from "../../scripts/platform-docs";

describe("platform table (docs/platforms.md)", () => {
  it("is what the registry generates (run `npm run docs:platforms` after changing a platform)", () => {
    const document = fs.readFileSync(PLATFORM_DOCS, "utf8");
    assert.equal(withPlatformDocs(document), document);
  });

  it("names every registered platform's routes and settings", () => {
    const section = renderPlatformDocs();
    for (const p of platformDefinitions) {
      assert.ok(section.includes(`/api/minigame/${p.name}/login`), p.name);
      assert.ok(section.includes(`${p.name.toUpperCase()}_APP_SECRET`), p.name);
    }
  });

  it("is linked from the README", () => {
    const readme = fs.readFileSync(path.resolve(__dirname, "../../README.md"), "utf8");
    assert.match(readme, /\]\(docs\/platforms\.md\)/);
  });
});
