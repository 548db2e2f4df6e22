/**
 * LiveOps definitions from the settings: LIVEOPS_FILE is checked with the other settings against
 * the app's catalog, every problem at once; development ships the example; a good file replaces it.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigError, parseConfig } from "../../src/config/config";
import { checkSettings } from "../../src/ops/settings-check";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-liveops-settings-"));
let files = 0;
function file(content: unknown): string {
  const name = path.join(dir, `f-${files++}.json`);
  fs.writeFileSync(name, typeof content === "string" ? content : JSON.stringify(content));
  return name;
}
const base = { NODE_ENV: "development", JWT_SECRET: "liveops-settings-test-secret-0123456789abcdef" };

describe("LiveOps settings", () => {
  it("reports every problem of LIVEOPS_FILE at once, checked against the catalog", () => {
    const broken = file({ flags: [{ key: "a", default: 1 }, { key: "a", default: 2 }], events: [{ eventId: "s", name: "S", prices: { ghost: { coins: 1 } } }] });
    let problems: string[] = [];
    try {
      parseConfig({ ...base, LIVEOPS_FILE: broken });
      assert.fail("expected a ConfigError");
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      problems = err.problems;
    }
    const text = problems.join("\n");
    assert.ok(text.includes("flags[1] (a): key is listed twice"), text);
    assert.ok(text.includes("events[0] (s).prices.ghost: unknown item"), text);
    assert.ok(text.includes("LIVEOPS_FILE"), text);
    const unreadable = problemsOfCheck({ ...base, LIVEOPS_FILE: path.join(dir, "missing.json") });
    assert.ok(unreadable.some((p) => p.includes("cannot read")), unreadable.join("\n"));
  });

  it("ships the example in development; a file replaces it; config:check describes it", () => {
    assert.deepEqual(parseConfig(base).liveops.definitions.default.flags.map((f) => f.key), ["welcome_text", "ad_reward_multiplier"]);
    const good = file({ flags: [{ key: "speed", default: 1 }] });
    const config = parseConfig({ ...base, LIVEOPS_FILE: good, LIVEOPS_REFRESH_MS: "500" });
    assert.deepEqual(config.liveops.definitions.default.flags.map((f) => f.key), ["speed"]);
    assert.equal(config.liveops.refreshMs, 500);
    const check = checkSettings({ ...base, LIVEOPS_FILE: good });
    assert.ok(check.ok && check.summary.includes("liveops: default (1 flags, 0 experiments, 0 events)"), JSON.stringify(check));
  });
});

function problemsOfCheck(env: Record<string, string>): string[] {
  const check = checkSettings(env);
  return check.ok ? [] : check.problems;
}
