/** The client's view of LiveOps: flag(key, default) keeps the default's type; a new version is announced. */
import assert from "node:assert/strict";
import { fetchConfig, playerConfig } from "../../client/src/liveops";

describe("client config()", () => {
  const data = { version: 2, flags: { welcome_text: "hi", speed: 3, off: null }, experiments: [{ experimentId: "exp", variant: "b" }], events: [] };
  it("answers a flag's value, or the default when absent or of another type", () => {
    const config = playerConfig(data);
    assert.equal(config.flag("welcome_text", "x"), "hi");
    assert.equal(config.flag("speed", 1), 3);
    assert.equal(config.flag("speed", "fast"), "fast");
    assert.equal(config.flag("missing", true), true);
    assert.equal(config.variant("exp"), "b");
    assert.equal(config.variant("other"), undefined);
  });
  it("tells onChange when the version changed since the last fetch", async () => {
    const seen: number[] = [];
    const request = (async () => ({ ...data, version: 3 })) as never;
    await fetchConfig(request, playerConfig(data), (c) => seen.push(c.version));
    await fetchConfig(request, playerConfig({ ...data, version: 3 }), (c) => seen.push(c.version));
    assert.deepEqual(seen, [3]);
  });
});
