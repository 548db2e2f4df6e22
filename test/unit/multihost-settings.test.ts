/**
 * The settings of a deployment over several hosts: PUBLIC_ADDRESS forms and the production rule,
 * Redis Cluster seed nodes, Colyseus's timeouts as our settings, the cluster's hash slots, and
 * Colyseus's log lines through our logger.
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { ConfigError, parseConfig } from "../../src/config/config";
import { isValidPublicAddress } from "../../src/config/settings/server";
import { groupBySlot, hashSlot } from "../../src/adapters/cache/hash-slot";
import { colyseusVariables } from "../../src/server/colyseus-environment";
import { colyseusLogger } from "../../src/server/colyseus-logger";
import { createLogger } from "../../src/logging/logger";

const production = {
  NODE_ENV: "production",
  JWT_SECRET: "k".repeat(20) + "Q9v!xZ2#mB7@pL4$wR",
  WECHAT_APP_ID: "wx123",
  WECHAT_APP_SECRET: "s3cr3t-wechat-value",
  DOUYIN_APP_ID: "tt123",
  DOUYIN_APP_SECRET: "s3cr3t-douyin-value",
  ACCESS_TOKEN_ROUTE_KEY: "0123456789abcdef0123",
  DATABASE_URL: "postgres://db/x",
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    parseConfig(env);
    return [];
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.problems;
  }
}

describe("settings for several hosts", () => {
  it("accepts a host with {port} or a path under one domain as PUBLIC_ADDRESS", () => {
    for (const ok of ["game.example.com/{port}", "game.example.com/a/{port}", "game.example.com/a", "game.example.com", "10.0.0.7:2567", "[::1]:{port}/x", "game.example.com/hosts/b-2"]) {
      assert.ok(isValidPublicAddress(ok), ok);
    }
    for (const bad of ["https://game.example.com", "game.example.com/", "game.example.com/a/", "game.example.com/{port}/{port}", "game.example.com:99999", "game example.com", "game.example.com/a?b", "/a", "game.example.com//a"]) {
      assert.ok(!isValidPublicAddress(bad), bad);
      assert.ok(problemsOf({ PUBLIC_ADDRESS: bad }).some((p) => p.startsWith("PUBLIC_ADDRESS")), bad);
    }
    assert.equal(parseConfig({ PUBLIC_ADDRESS: "game.example.com/a" }).publicAddress, "game.example.com/a");
    assert.equal(parseConfig({ PUBLIC_ADDRESS: "game.example.com/a/{port}", NODE_APP_INSTANCE: "1" }).publicAddress, "game.example.com/a/2568");
  });

  it("requires PUBLIC_ADDRESS in production with shared Redis, whatever INSTANCES says", () => {
    const single = problemsOf({ ...production, REDIS_URL: "redis://r:6379" });
    assert.ok(single.some((p) => p.startsWith("PUBLIC_ADDRESS") && p.includes("shared Redis")), single.join("\n"));
    const cluster = problemsOf({ ...production, REDIS_CLUSTER_NODES: "redis://r1:7000,redis://r2:7000" });
    assert.ok(cluster.some((p) => p.startsWith("PUBLIC_ADDRESS")), cluster.join("\n"));
    assert.deepEqual(problemsOf({ ...production, REDIS_URL: "redis://r:6379", PUBLIC_ADDRESS: "game.example.com/a" }), []);
    assert.deepEqual(problemsOf({ ...production }), [], "one process on the memory cache needs no public address");
    assert.deepEqual(problemsOf({ REDIS_URL: "redis://r:6379" }), [], "development does not need it");
  });

  it("names a Redis Cluster by seed nodes, exclusive of REDIS_URL", () => {
    const c = parseConfig({ REDIS_CLUSTER_NODES: "redis://10.0.0.1:7000, redis://:pw@10.0.0.2:7001" });
    assert.deepEqual(c.cache, { kind: "redis-cluster", nodes: ["redis://10.0.0.1:7000", "redis://:pw@10.0.0.2:7001"] });
    assert.ok(problemsOf({ REDIS_CLUSTER_NODES: "10.0.0.1:7000" }).some((p) => p.startsWith("REDIS_CLUSTER_NODES")));
    assert.ok(problemsOf({ REDIS_CLUSTER_NODES: "redis://a:1", REDIS_URL: "redis://b:2" }).some((p) => p.startsWith("REDIS_CLUSTER_NODES")));
    assert.ok(!problemsOf({ INSTANCES: "2", REDIS_CLUSTER_NODES: "redis://a:1" }).some((p) => p.startsWith("REDIS_URL")));
    assert.ok(problemsOf({ REDIS_CLUSTER_NODES: "redis://a:1", CACHE_KEY_PREFIX: "{game}:" }).some((p) => p.startsWith("CACHE_KEY_PREFIX")));
    assert.deepEqual(problemsOf({ REDIS_URL: "redis://a:1", CACHE_KEY_PREFIX: "{game}:" }), [], "one Redis has no slots");
  });

  it("hands Colyseus its timeouts from our settings, under the names it reads", () => {
    const c = parseConfig({ ROOM_SEAT_RESERVATION_SEC: "9", PRESENCE_REQUEST_TIMEOUT_MS: "1500", HOST_CHECK_INTERVAL_MS: "500" });
    assert.deepEqual(colyseusVariables(c.colyseus), { COLYSEUS_SEAT_RESERVATION_TIME: "9", COLYSEUS_PRESENCE_SHORT_TIMEOUT: "1500" });
    assert.equal(c.hostCheckIntervalMs, 500);
    const defaults = parseConfig({});
    assert.deepEqual(defaults.colyseus, { seatReservationSec: 15, presenceRequestTimeoutMs: 2000 }, "Colyseus's own defaults");
  });

  it("puts a user's session keys in one cluster hash slot through the {userId} hash tag", () => {
    // Redis's documented values: CLUSTER KEYSLOT foo = 12182, {user1000}.following = 3443.
    assert.equal(hashSlot("foo"), 12182);
    assert.equal(hashSlot("{user1000}.following"), hashSlot("{user1000}.followers"));
    assert.equal(hashSlot("{user1000}.following"), 3443);
    assert.equal(hashSlot("a{}b"), hashSlot("a{}b"), "an empty tag hashes the whole key");
    const id = "0190c0de-0000-7000-8000-000000000001";
    assert.equal(groupBySlot([`access_token:{${id}}`, `refresh_token:{${id}}`, `session_key:{${id}}`, `refresh_rotation:{${id}}:jti`]).length, 1);
    assert.deepEqual(groupBySlot(["foo", "{user1000}.a", "foo"]), [[0, 2], [1]]);
  });

  it("writes Colyseus's own messages as JSON lines of our logger", () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
    const log = colyseusLogger(createLogger({ level: "debug", destination: sink }));
    log.debug("❌ Process 'abc' failed to respond. Cleaning it up.");
    log.info("%s rooms", 3);
    log.trace("not at this level");
    const parsed = lines.map((l) => JSON.parse(l) as { msg: string; component: string; level: number });
    assert.deepEqual(parsed.map((p) => [p.component, p.msg]), [["colyseus", "❌ Process 'abc' failed to respond. Cleaning it up."], ["colyseus", "3 rooms"]]);
  });
});
