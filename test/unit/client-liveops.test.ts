/** The client's view of LiveOps: flag(key, default) keeps the default's type; a new version is announced. */
import assert from "node:assert/strict";
import { ConfigKeeper, fetchConfig, playerConfig } from "../../client/src/liveops";

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
    const get = (async () => ({ notModified: false, data: { ...data, version: 3 }, etag: '"v3"' })) as never;
    await fetchConfig(get, { config: playerConfig(data), etag: '"v2"' }, (c) => seen.push(c.version));
    await fetchConfig(get, { config: playerConfig({ ...data, version: 3 }), etag: '"v3"' }, (c) => seen.push(c.version));
    assert.deepEqual(seen, [3]);
  });
  it("sends the held ETag and keeps the held config on a 304", async () => {
    const asked: Array<string | undefined> = [];
    let answer: unknown = { notModified: false, data, etag: '"v2"' };
    const get = (async (_path: string, etag: string | undefined) => (asked.push(etag), answer)) as never;
    const first = await fetchConfig(get, undefined);
    answer = { notModified: true };
    const second = await fetchConfig(get, first, () => assert.fail("no change on a 304"));
    assert.deepEqual(asked, [undefined, '"v2"']);
    assert.equal(second, first);
  });
  it("a room's announcement fetches once for several rooms and tells of the config even when none was held", async () => {
    let calls = 0;
    const get = (async () => (calls++, { notModified: false, data: { ...data, version: 4 }, etag: '"v4"' })) as never;
    const changed: number[] = [];
    const keeper = new ConfigKeeper(get, (c) => changed.push(c.version));
    keeper.announced();
    keeper.announced();
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual([calls, changed], [1, [4]]);
  });
});
