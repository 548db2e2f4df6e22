import assert from "node:assert/strict";
import { ConfigError, parseConfig } from "../../src/config/config";

const offSimulator = { PLATFORM_SIMULATOR: "off", WECHAT_APP_ID: "wx1", WECHAT_APP_SECRET: "s1", DOUYIN_APP_ID: "tt1", DOUYIN_APP_SECRET: "s2" };

describe("config: API docs and playground switches", () => {
  it("serves the docs by default, and the playground only next to the embedded simulator", () => {
    const dev = parseConfig({});
    assert.deepEqual([dev.apiDocsEnabled, dev.playgroundEnabled], [true, true]);
    const real = parseConfig(offSimulator);
    assert.deepEqual([real.apiDocsEnabled, real.playgroundEnabled], [true, false]);
  });

  it("follows explicit settings either way", () => {
    assert.equal(parseConfig({ API_DOCS_ENABLED: "false" }).apiDocsEnabled, false);
    assert.equal(parseConfig({ PLAYGROUND_ENABLED: "false" }).playgroundEnabled, false);
    assert.equal(parseConfig({ ...offSimulator, PLAYGROUND_ENABLED: "true" }).playgroundEnabled, true);
  });

  it("refuses a value that is not a boolean", () => {
    assert.throws(() => parseConfig({ API_DOCS_ENABLED: "maybe" }), ConfigError);
  });
});
