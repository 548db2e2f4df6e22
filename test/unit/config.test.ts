import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigError, DEV_JWT_SECRET, parseConfig, readEnvironment } from "../../src/config/config";
import { platformDefinitions } from "../../src/platforms/registry";

const STRONG = "k".repeat(20) + "Q9v!xZ2#mB7@pL4$wR"; // ≥ 32 bytes, no placeholder words
const productionEnv = {
  NODE_ENV: "production",
  JWT_SECRET: STRONG,
  WECHAT_APP_ID: "wx123",
  WECHAT_APP_SECRET: "s3cr3t-wechat-value",
  DOUYIN_APP_ID: "tt123",
  DOUYIN_APP_SECRET: "s3cr3t-douyin-value",
  ACCESS_TOKEN_ROUTE_KEY: "0123456789abcdef0123",
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    parseConfig(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.problems;
  }
  assert.fail("expected a ConfigError");
}

describe("config", () => {
  it("starts in development on embedded defaults with no settings at all", () => {
    const c = parseConfig({});
    assert.equal(c.env, "development");
    assert.equal(c.port, 2567);
    assert.equal(c.simulator, "embedded");
    assert.deepEqual(c.store, { kind: "sqlite", path: "./data/users.sqlite", synchronous: "FULL" });
    assert.deepEqual(c.cache, { kind: "memory" });
    assert.deepEqual(c.userCache, { ttlMs: 5000, maxEntries: 20_000 });
    assert.equal(c.jwt.secret, DEV_JWT_SECRET);
    assert.equal(c.jwt.accessTtlSec, 7200);
    assert.equal(c.jwt.refreshTtlSec, 30 * 24 * 3600);
    assert.equal(c.platforms.wechat.extra.tokenApi, "stable");
    assert.ok(Object.isFrozen(c) && Object.isFrozen(c.jwt));
  });

  it("makes SQLite durability a setting: FULL by default, NORMAL on request, nothing else", () => {
    assert.equal((parseConfig({ SQLITE_SYNCHRONOUS: "NORMAL" }).store as { synchronous: string }).synchronous, "NORMAL");
    assert.throws(() => parseConfig({ SQLITE_SYNCHRONOUS: "OFF" }), /SQLITE_SYNCHRONOUS/);
    assert.equal(parseConfig({ USER_CACHE_TTL_MS: "0" }).userCache.ttlMs, 0);
  });

  it("accepts a complete production configuration", () => {
    const c = parseConfig(productionEnv);
    assert.equal(c.simulator, "off");
    assert.equal(c.platforms.wechat.apiBaseUrl, "https://api.weixin.qq.com");
    assert.equal(c.platforms.douyin.apiBaseUrl, "https://minigame.zijieapi.com");
  });

  it("refuses production without a JWT secret, with a short one, or with a placeholder", () => {
    const { JWT_SECRET: _omit, ...noSecret } = productionEnv;
    assert.ok(problemsOf(noSecret).some((p) => p.startsWith("JWT_SECRET")));
    assert.ok(problemsOf({ ...productionEnv, JWT_SECRET: "short" }).some((p) => p.startsWith("JWT_SECRET")));
    assert.ok(
      problemsOf({ ...productionEnv, JWT_SECRET: "change-me-change-me-change-me-change-me" }).some((p) =>
        p.startsWith("JWT_SECRET"),
      ),
    );
    assert.ok(problemsOf({ ...productionEnv, JWT_SECRET: DEV_JWT_SECRET }).some((p) => p.startsWith("JWT_SECRET")));
  });

  it("refuses the simulator and missing platform credentials in production, reporting every problem at once", () => {
    const problems = problemsOf({ NODE_ENV: "production", PLATFORM_SIMULATOR: "embedded" });
    assert.ok(problems.some((p) => p.startsWith("PLATFORM_SIMULATOR")));
    assert.ok(problems.some((p) => p.startsWith("JWT_SECRET")));
    assert.ok(problems.some((p) => p.startsWith("ACCESS_TOKEN_ROUTE_KEY")));
    const { WECHAT_APP_SECRET: _s, ...noWechatSecret } = productionEnv;
    assert.ok(problemsOf(noWechatSecret).some((p) => p.includes("WECHAT_APP_SECRET")));
  });

  it("requires the internal key for access-token routes in production unless public access is chosen", () => {
    const { ACCESS_TOKEN_ROUTE_KEY: _k, ...noKey } = productionEnv;
    assert.ok(problemsOf(noKey).some((p) => p.startsWith("ACCESS_TOKEN_ROUTE_KEY")));
    const c = parseConfig({ ...noKey, ACCESS_TOKEN_ROUTE_PUBLIC: "true" });
    assert.equal(c.accessTokenRoute.public, true);
  });

  it("refuses the shipped arena.env until its placeholders are replaced", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "arena-"));
    try {
      fs.copyFileSync(path.resolve(__dirname, "../../arena.env"), path.join(dir, "arena.env"));
      const problems = problemsOf(readEnvironment({ NODE_ENV: "production" }, dir) as Record<string, string>);
      for (const key of ["JWT_SECRET", "DATABASE_URL", "WECHAT_APP_SECRET", "DOUYIN_APP_ID", "ACCESS_TOKEN_ROUTE_KEY"]) {
        assert.ok(problems.some((p) => p.startsWith(key)), `${key} flagged`);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses several instances with the in-memory cache or SQLite", () => {
    const problems = problemsOf({ INSTANCES: "2" });
    assert.ok(problems.some((p) => p.includes("REDIS_URL")));
    assert.ok(problems.some((p) => p.includes("DATABASE_URL")));
  });

  it("gives each pm2 process a public address with its own port", () => {
    const c = parseConfig({ PORT: "3000", NODE_APP_INSTANCE: "2", PUBLIC_ADDRESS: "game.example.com/{port}" });
    assert.equal(c.publicAddress, "game.example.com/3002");
    const problems = problemsOf({ INSTANCES: "2", REDIS_URL: "redis://r:6379", DATABASE_URL: "postgres://db/x" });
    assert.deepEqual(problems.filter((p) => p.includes("PUBLIC_ADDRESS")).length, 1);
    assert.ok(problemsOf({ PUBLIC_ADDRESS: "https://game.example.com" }).some((p) => p.startsWith("PUBLIC_ADDRESS")));
  });

  it("rejects malformed values with the setting named", () => {
    const problems = problemsOf({ PORT: "http", REDIS_URL: "localhost:6379", ACCESS_TOKEN_TTL_SEC: "-5" });
    assert.ok(problems.some((p) => p.startsWith("PORT")));
    assert.ok(problems.some((p) => p.startsWith("REDIS_URL")));
    assert.ok(problems.some((p) => p.startsWith("ACCESS_TOKEN_TTL_SEC")));
  });

  it("treats blank values as unset", () => {
    const c = parseConfig({ PORT: "", REDIS_URL: "  " });
    assert.equal(c.port, 2567);
    assert.deepEqual(c.cache, { kind: "memory" });
  });

  it("reads .env in development and arena.env in production, with the environment winning", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cfg-"));
    try {
      fs.writeFileSync(path.join(dir, ".env"), "PORT=3001\nLOG_LEVEL=debug\n");
      fs.writeFileSync(path.join(dir, "arena.env"), "PORT=4001\n");
      assert.equal(readEnvironment({}, dir).PORT, "3001");
      assert.equal(readEnvironment({ PORT: "5001" }, dir).PORT, "5001");
      assert.equal(readEnvironment({ NODE_ENV: "production" }, dir).PORT, "4001");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("config: which platforms are served", () => {
  const registered = platformDefinitions.map((p) => p.name);

  it("serves every registered platform beside the embedded simulator", () => {
    assert.deepEqual(Object.keys(parseConfig({}).platforms), registered);
  });

  it("serves WeChat and Douyin when the simulator is off and PLATFORMS is unset, needing only their credentials", () => {
    const c = parseConfig(productionEnv);
    assert.deepEqual(Object.keys(c.platforms), ["wechat", "douyin"]);
  });

  it("serves exactly the listed platforms and requires credentials only for them", () => {
    const c = parseConfig({ PLATFORM_SIMULATOR: "off", PLATFORMS: "wechat", WECHAT_APP_ID: "wx1", WECHAT_APP_SECRET: "s1" });
    assert.deepEqual(Object.keys(c.platforms), ["wechat"]);
    const problems = problemsOf({ PLATFORM_SIMULATOR: "off", PLATFORMS: "douyin" });
    assert.ok(problems.some((p) => p.startsWith("DOUYIN_APP_ID")));
    assert.ok(!problems.some((p) => p.startsWith("WECHAT_")));
  });

  it("refuses unknown or empty platform lists with the setting named", () => {
    assert.ok(problemsOf({ PLATFORMS: "wechat,myspace" }).some((p) => p.startsWith("PLATFORMS")));
    assert.ok(problemsOf({ PLATFORMS: " , " }).some((p) => p.startsWith("PLATFORMS")));
  });

  it("reads Douyin's feed secrets as appid:secret pairs, reports malformed ones, and refuses a placeholder in production", () => {
    assert.deepEqual(parseConfig({ DOUYIN_FEED_SECRETS: "tt123:one, tt456:two:with-colon" }).growth.douyinFeed.secrets, { tt123: "one", tt456: "two:with-colon" });
    assert.deepEqual(parseConfig({}).growth.douyinFeed.secrets, {});
    assert.ok(problemsOf({ DOUYIN_FEED_SECRETS: "tt123" }).some((p) => p.startsWith("DOUYIN_FEED_SECRETS: must be appid:secret pairs")));
    assert.ok(problemsOf({ DOUYIN_FEED_DEADLINE_MS: "10" }).some((p) => p.startsWith("DOUYIN_FEED_DEADLINE_MS")));
    assert.equal(parseConfig({ DOUYIN_FEED_DEADLINE_MS: "5000" }).growth.douyinFeed.deadlineMs, 5000, "a slow test store may wait longer");
    assert.ok(problemsOf({ ...productionEnv, DOUYIN_FEED_DEADLINE_MS: "300" }).some((p) => p.startsWith("DOUYIN_FEED_DEADLINE_MS: must be at most 280")));
    assert.deepEqual(
      problemsOf({ ...productionEnv, DOUYIN_FEED_SECRETS: "tt123:9f8e7d6c5b4a39281706,tt456:your-feed-secret" }).filter((p) => p.startsWith("DOUYIN_FEED")),
      ["DOUYIN_FEED_SECRETS: the secret of tt456 is still a placeholder"],
    );
    assert.doesNotThrow(() => parseConfig({ ...productionEnv, DOUYIN_FEED_SECRETS: "tt123:9f8e7d6c5b4a39281706" }));
  });

  it("reports each setting once, the placeholder first", () => {
    const problems = problemsOf({ ...productionEnv, JWT_SECRET: "change-me" });
    assert.deepEqual(problems.filter((p) => p.startsWith("JWT_SECRET")), ["JWT_SECRET: still the arena.env placeholder"]);
  });

  it("still starts from an arena.env written before PLATFORMS existed, once its placeholders are filled in", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "arena-old-"));
    try {
      const old = fs.readFileSync(path.resolve(__dirname, "../fixtures/arena-before-platforms.env"), "utf8");
      const filled = old
        .replace("JWT_SECRET=change-me", `JWT_SECRET=${"s".repeat(40)}Q9vxZ2mB7pL4wR`)
        .replace("ACCESS_TOKEN_ROUTE_KEY=change-me", "ACCESS_TOKEN_ROUTE_KEY=0123456789abcdef0123")
        .replace(/change-me/g, "filled-in");
      fs.writeFileSync(path.join(dir, "arena.env"), filled);
      const c = parseConfig(readEnvironment({ NODE_ENV: "production" }, dir));
      assert.deepEqual(Object.keys(c.platforms), ["wechat", "douyin"]);
      assert.equal(c.platforms.wechat.appId, "filled-in");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("config: content security", () => {
  it("is on by default with the word-list fallback and a one-minute, 4000-entry verdict cache", () => {
    assert.deepEqual(parseConfig({}).contentCheck, {
      enabled: true,
      fallback: "word_list",
      words: [],
      wordsFile: undefined,
      cacheTtlSec: 60,
      cacheEntries: 4000,
    });
    const set = parseConfig({ CONTENT_CHECK_ENABLED: "false", CONTENT_CHECK_FALLBACK: "refuse", CONTENT_CHECK_WORDS: " foo , bar ,," }).contentCheck;
    assert.deepEqual([set.enabled, set.fallback, set.words], [false, "refuse", ["foo", "bar"]]);
  });

  it("rejects an unknown fallback, a negative cache time and a Douyin content URL without a scheme, naming each", () => {
    const problems = problemsOf({ CONTENT_CHECK_FALLBACK: "allow", CONTENT_CHECK_CACHE_TTL_SEC: "-1", DOUYIN_CONTENT_API_BASE_URL: "developer.toutiao.com" });
    for (const key of ["CONTENT_CHECK_FALLBACK", "CONTENT_CHECK_CACHE_TTL_SEC", "DOUYIN_CONTENT_API_BASE_URL"]) {
      assert.ok(problems.some((p) => p.startsWith(`${key}:`)), `${key} in ${problems.join(" | ")}`);
    }
  });
});

describe("config: the user store's URL", () => {
  it("picks MongoDB for mongodb:// and mongodb+srv:// URLs, with the database timeouts", () => {
    for (const url of ["mongodb://127.0.0.1:27017/game", "mongodb+srv://game:secret@cluster0.example.net/game?retryWrites=true"]) {
      const c = parseConfig({ DATABASE_URL: url, DATABASE_CONNECT_TIMEOUT_MS: "900" });
      assert.deepEqual(c.store, { kind: "mongodb", url, connectTimeoutMs: 900, acquireTimeoutMs: 3000, queryTimeoutMs: 800, orphanClaimMs: 30_000 });
    }
    assert.equal(parseConfig({ DATABASE_URL: "postgres://db/x" }).store.kind, "postgres");
    assert.equal("orphanClaimMs" in parseConfig({ DATABASE_URL: "postgres://db/x" }).store, false);
    assert.equal(parseConfig({}).store.kind, "sqlite");
  });

  it("takes over a MongoDB creation claim left by a crash after MONGODB_ORPHAN_CLAIM_SEC, never under 5 s", () => {
    const store = parseConfig({ DATABASE_URL: "mongodb://db/x", MONGODB_ORPHAN_CLAIM_SEC: "5" }).store as { orphanClaimMs?: number };
    assert.equal(store.orphanClaimMs, 5000);
    assert.ok(problemsOf({ DATABASE_URL: "mongodb://db/x", MONGODB_ORPHAN_CLAIM_SEC: "4" }).some((p) => p.startsWith("MONGODB_ORPHAN_CLAIM_SEC:")));
  });

  it("refuses a URL of another kind or without a host, naming DATABASE_URL", () => {
    for (const url of ["mysql://db/x", "mongodb://", "mongodb:///game", "mongo://db/x", "127.0.0.1:27017"]) {
      const problems = problemsOf({ DATABASE_URL: url });
      assert.ok(problems.some((p) => p.startsWith("DATABASE_URL")), `${url}: ${problems.join("; ")}`);
    }
  });

  it("lets several processes share MongoDB as they share PostgreSQL", () => {
    const c = parseConfig({ INSTANCES: "2", REDIS_URL: "redis://r:6379", DATABASE_URL: "mongodb://db/x", PUBLIC_ADDRESS: "game.example.com/{port}" });
    assert.equal(c.store.kind, "mongodb");
  });
});
