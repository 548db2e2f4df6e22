/**
 * `config:check -- --connect`: each dependency reached for real (PostgreSQL, Redis, a platform
 * endpoint served here), and the one that does not answer named, with why.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { parseConfig } from "../../src/config/config";
import { checkConnections, formatConnections } from "../../src/ops/connect-check";
import { testDatabaseUrl, testRedisUrl } from "../support/services";
import { freePort } from "../support/app-harness";

describe("config:check --connect names what does not answer", function () {
  this.timeout(30_000);
  let platform: http.Server;
  let platformUrl: string;
  before(async () => {
    platform = http.createServer((_req, res) => res.writeHead(404).end());
    await new Promise<void>((r) => platform.listen(0, "127.0.0.1", () => r()));
    platformUrl = `http://127.0.0.1:${(platform.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => platform.close(() => r())));

  it("all answering: SQLite's folder and a platform endpoint (a 404 is an answer)", async () => {
    const config = parseConfig({ NODE_ENV: "development", SQLITE_PATH: "./data/x.sqlite", WECHAT_API_BASE_URL: platformUrl, PLATFORMS: "wechat" });
    const results = await checkConnections(config);
    assert.deepEqual(results.map((r) => [r.what.split(" ")[0], r.ok]), [["SQLite", true], ["wechat", true]], formatConnections(results));
  });

  it("names a database, a Redis and a platform that do not answer", async () => {
    const dead = await freePort();
    const config = parseConfig({
      NODE_ENV: "development",
      DATABASE_URL: `postgres://nobody@127.0.0.1:${dead}/none`,
      REDIS_URL: `redis://127.0.0.1:${dead}`,
      WECHAT_API_BASE_URL: `http://127.0.0.1:${dead}`,
      PLATFORMS: "wechat",
    });
    const text = formatConnections(await checkConnections(config));
    assert.match(text, /FAIL {2}PostgreSQL \(DATABASE_URL\): ECONNREFUSED/);
    assert.match(text, /FAIL {2}Redis \(REDIS_URL\): ECONNREFUSED/);
    assert.match(text, new RegExp(`FAIL  wechat API http://127\\.0\\.0\\.1:${dead} \\(app default\\)`));
  });

  (testDatabaseUrl && testRedisUrl ? it : it.skip)("reaches the real PostgreSQL and Redis", async () => {
    const config = parseConfig({ NODE_ENV: "development", DATABASE_URL: testDatabaseUrl!, REDIS_URL: testRedisUrl!, WECHAT_API_BASE_URL: platformUrl, PLATFORMS: "wechat" });
    const results = await checkConnections(config);
    assert.deepEqual(results.filter((r) => !r.ok), [], formatConnections(results));
  });
});
