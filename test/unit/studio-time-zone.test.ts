/**
 * One studio time zone: STUDIO_TIME_ZONE sets both the growth rewards' day and analytics' days;
 * ANALYTICS_TIME_ZONE, its deprecated old name, is read when it is not set; both set and different
 * is refused at start, naming both.
 */
import assert from "node:assert/strict";
import { ConfigError, parseConfig } from "../../src/config/config";

describe("config: the studio's time zone", () => {
  it("defaults to Asia/Shanghai for both growth and analytics", () => {
    const c = parseConfig({});
    assert.deepEqual([c.growth.timeZone, c.analytics.timeZone], ["Asia/Shanghai", "Asia/Shanghai"]);
  });

  it("STUDIO_TIME_ZONE sets both days", () => {
    const c = parseConfig({ STUDIO_TIME_ZONE: "America/New_York" });
    assert.deepEqual([c.growth.timeZone, c.analytics.timeZone], ["America/New_York", "America/New_York"]);
  });

  it("ANALYTICS_TIME_ZONE alone is still read, for both (a deployment that set only the old name keeps its days)", () => {
    const c = parseConfig({ ANALYTICS_TIME_ZONE: "Europe/Berlin" });
    assert.deepEqual([c.growth.timeZone, c.analytics.timeZone], ["Europe/Berlin", "Europe/Berlin"]);
    const same = parseConfig({ ANALYTICS_TIME_ZONE: "UTC", STUDIO_TIME_ZONE: "UTC" });
    assert.equal(same.analytics.timeZone, "UTC");
  });

  it("refuses the two names set to different zones, and a zone that is not one", () => {
    assert.throws(() => parseConfig({ STUDIO_TIME_ZONE: "UTC", ANALYTICS_TIME_ZONE: "Asia/Tokyo" }), (err: unknown) => err instanceof ConfigError && /ANALYTICS_TIME_ZONE.*deprecated.*STUDIO_TIME_ZONE/.test(err.message));
    assert.throws(() => parseConfig({ STUDIO_TIME_ZONE: "Mars/Olympus" }), /STUDIO_TIME_ZONE/);
    assert.throws(() => parseConfig({ ANALYTICS_TIME_ZONE: "Mars/Olympus" }), /ANALYTICS_TIME_ZONE/);
  });
});
