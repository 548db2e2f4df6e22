import assert from "node:assert/strict";
import { fakePlatformApps } from "../support/platform-apps";
import { MemoryCache } from "../../src/adapters/cache/memory-cache";
import { AppError } from "../../src/core/errors";
import { createLogger } from "../../src/logging/logger";
import { Metrics } from "../../src/observability/metrics";
import { PlatformTokenRejectedError, type FetchAccessTokenOptions, type PlatformClient } from "../../src/platforms/platform";
import { PlatformTokenService } from "../../src/services/platform-token-service";
import { counterValue } from "../support/metric-counter";

/** A platform in miniature: which tokens work, what the token API answers, and how often it was asked. */
class FakePlatform {
  valid = new Set<string>();
  current = "";
  fetches = 0;
  forces = 0;
  /** When false, normal mode keeps answering the current token even if it no longer works. */
  normalModeMovesOn = true;
  private serial = 0;

  constructor(readonly tokenApi: "stable" | "ordinary") {}

  mint(): string {
    this.current = `token-${++this.serial}`;
    this.valid.add(this.current);
    return this.current;
  }

  /** Someone else cancelled the current token (a force refresh elsewhere). */
  cancelCurrent(): void {
    this.valid.delete(this.current);
  }

  client(): PlatformClient {
    return {
      platform: "fake",
      tokenApi: this.tokenApi,
      exchangeCode: () => Promise.reject(new Error("not used")),
      fetchAccessToken: async (options: FetchAccessTokenOptions = {}) => {
        this.fetches++;
        if (options.forceRefresh) {
          this.forces++;
          this.valid.delete(this.current);
          return { accessToken: this.mint(), expiresInSec: 7200 };
        }
        if (this.tokenApi === "ordinary" || !this.current || (!this.valid.has(this.current) && this.normalModeMovesOn)) this.mint();
        return { accessToken: this.current, expiresInSec: 7200 };
      },
    };
  }

  /** A business call: answers with the token it used, or rejects it like WeChat 40001. */
  business = async (token: string): Promise<string> => {
    if (!this.valid.has(token)) throw new PlatformTokenRejectedError("fake", token, { errcode: 40001 });
    return token;
  };
}

describe("self-healing platform tokens", () => {
  let clock: number;
  let cache: MemoryCache;
  let metrics: Metrics;

  function service(platform: FakePlatform, options: { forceRefreshPerDay?: number } = {}) {
    return new PlatformTokenService(fakePlatformApps([{ platform: "fake", app: "default", client: platform.client() }]), cache, createLogger({ level: "silent" }), {
      refreshMarginSec: 300,
      lockWaitMs: 2000,
      now: () => clock,
      metrics,
      ...options,
    });
  }

  beforeEach(() => {
    clock = Date.UTC(2026, 0, 1, 12);
    cache = new MemoryCache({ now: () => clock });
    metrics = new Metrics();
  });
  afterEach(() => cache.close());

  for (const tokenApi of ["stable", "ordinary"] as const) {
    it(`${tokenApi}: a cancelled cached token is replaced by one fetch and the call succeeds on its one retry`, async () => {
      const platform = new FakePlatform(tokenApi);
      const tokens = service(platform);
      const first = await tokens.withPlatformToken("fake", "default", platform.business);
      platform.cancelCurrent();
      let attempts = 0;
      const answer = await tokens.withPlatformToken("fake", "default", (t) => {
        attempts++;
        return platform.business(t);
      });
      assert.notEqual(answer, first);
      assert.equal(attempts, 2);
      assert.equal(platform.fetches, 2);
      assert.equal(platform.forces, 0);
      assert.equal((await tokens.getAccessToken("fake", "default")).access_token, answer, "the healed token is what the cache serves now");
      assert.equal(await counterValue(metrics, "platform_access_token_invalidations_total", { platform: "fake", app: "default" }), 1);
    });
  }

  it("compare-and-delete: a late report of an older token keeps the newer cached one and fetches nothing", async () => {
    const platform = new FakePlatform("ordinary");
    const tokens = service(platform);
    const old = (await tokens.getAccessToken("fake", "default")).access_token;
    await tokens.invalidate("fake", "default", old);
    const fresh = (await tokens.getAccessToken("fake", "default")).access_token;
    assert.notEqual(fresh, old);
    const fetches = platform.fetches;
    assert.equal((await tokens.invalidate("fake", "default", old)).access_token, fresh);
    assert.equal(platform.fetches, fetches);
    assert.equal(await counterValue(metrics, "platform_access_token_invalidations_total", { platform: "fake", app: "default" }), 1);
  });

  it("concurrent reports of one token in one process cause one fetch", async () => {
    const platform = new FakePlatform("ordinary");
    const tokens = service(platform);
    const old = (await tokens.getAccessToken("fake", "default")).access_token;
    const answers = await Promise.all(Array.from({ length: 20 }, () => tokens.invalidate("fake", "default", old)));
    assert.equal(new Set(answers.map((a) => a.access_token)).size, 1);
    assert.notEqual(answers[0].access_token, old);
    assert.equal(platform.fetches, 2);
  });

  it("stable: forces a refresh only when normal mode answers the very token that failed", async () => {
    const platform = new FakePlatform("stable");
    platform.normalModeMovesOn = false; // the platform still calls the dead token current
    const tokens = service(platform);
    const dead = await tokens.withPlatformToken("fake", "default", platform.business);
    platform.cancelCurrent();
    const healed = await tokens.withPlatformToken("fake", "default", platform.business);
    assert.notEqual(healed, dead);
    assert.equal(platform.forces, 1);
    assert.equal(platform.fetches, 3, "first fetch, normal mode, then the force");
    assert.equal(await counterValue(metrics, "platform_access_token_forced_refreshes_total", { platform: "fake", app: "default", outcome: "done" }), 1);
  });

  it("stable: within 30 s of the last force, answers the current token and does not retry a call that cannot succeed", async () => {
    const platform = new FakePlatform("stable");
    platform.normalModeMovesOn = false;
    const tokens = service(platform);
    await tokens.withPlatformToken("fake", "default", platform.business);
    platform.cancelCurrent();
    await tokens.withPlatformToken("fake", "default", platform.business); // forces
    clock += 10_000;
    platform.cancelCurrent();
    let attempts = 0;
    await assert.rejects(
      tokens.withPlatformToken("fake", "default", (t) => {
        attempts++;
        return platform.business(t);
      }),
      (err: unknown) => err instanceof PlatformTokenRejectedError && err.code === "platform_unavailable",
    );
    assert.equal(attempts, 1);
    assert.equal(platform.forces, 1);
    assert.equal((await tokens.invalidate("fake", "default", platform.current)).access_token, platform.current, "the route answers the current token");
    assert.equal(await counterValue(metrics, "platform_access_token_forced_refreshes_total", { platform: "fake", app: "default", outcome: "blocked" }), 2);

    clock += 30_000;
    assert.notEqual(await tokens.withPlatformToken("fake", "default", platform.business), undefined);
    assert.equal(platform.forces, 2, "after the gap a force is allowed again");
  });

  it("stable: at most the daily number of forces (counted per Beijing day)", async () => {
    const platform = new FakePlatform("stable");
    platform.normalModeMovesOn = false;
    const tokens = service(platform, { forceRefreshPerDay: 3 });
    clock = Date.UTC(2026, 0, 1, 16, 5); // 00:05 in Beijing
    await tokens.getAccessToken("fake", "default");
    for (let i = 0; i < 6; i++) {
      clock += 31_000;
      platform.cancelCurrent();
      await tokens.invalidate("fake", "default", platform.current);
    }
    assert.equal(platform.forces, 3);
    clock = Date.UTC(2026, 0, 2, 16, 1); // the next Beijing day
    platform.cancelCurrent();
    await tokens.invalidate("fake", "default", platform.current);
    assert.equal(platform.forces, 4);
  });

  it("a second rejection is final, and other errors are not healed", async () => {
    const platform = new FakePlatform("ordinary");
    const tokens = service(platform);
    let attempts = 0;
    await assert.rejects(
      tokens.withPlatformToken("fake", "default", async (t) => {
        attempts++;
        throw new PlatformTokenRejectedError("fake", t, { errcode: 40014 });
      }),
      PlatformTokenRejectedError,
    );
    assert.equal(attempts, 2);
    assert.equal(platform.fetches, 2);

    attempts = 0;
    await assert.rejects(
      tokens.withPlatformToken("fake", "default", async () => {
        attempts++;
        throw new AppError("platform_rate_limited");
      }),
      (err: unknown) => err instanceof AppError && err.code === "platform_rate_limited",
    );
    assert.equal(attempts, 1);
    assert.equal(platform.fetches, 2);
  });

  describe("this process's copy of the cached token", () => {
    /** Counts cache reads of the token's entry; `hold` makes the next one wait until released. */
    function countReads() {
      const counted = { reads: 0, hold: false, release: () => undefined as void };
      const get = cache.get.bind(cache);
      cache.get = async (key: string) => {
        if (!key.startsWith("platform_access_token:")) return get(key);
        counted.reads++;
        const value = await get(key);
        if (counted.hold) {
          counted.hold = false;
          await new Promise<void>((resolve) => (counted.release = resolve));
        }
        return value;
      };
      return counted;
    }

    /** Two processes on one cache, each told of the other's changes as the presence channel does. */
    function twoProcesses(platform: FakePlatform, connected = true) {
      const a = service(platform);
      const b = service(platform);
      if (connected) {
        a.onTokenChange((key) => b.forgetCopy(key));
        b.onTokenChange((key) => a.forgetCopy(key));
      }
      return { a, b };
    }

    it("answers from the copy for up to a second, then reads the cache again", async () => {
      const platform = new FakePlatform("ordinary");
      const tokens = service(platform);
      const counted = countReads();
      const first = (await tokens.getAccessToken("fake", "default")).access_token;
      const readsAfterFetch = counted.reads;
      for (let i = 0; i < 100; i++) assert.equal((await tokens.getAccessToken("fake", "default")).access_token, first);
      assert.equal(counted.reads, readsAfterFetch, "the fetch left a copy: no cache read for 100 requests");
      clock += 1001;
      assert.equal((await tokens.getAccessToken("fake", "default")).access_token, first);
      assert.equal(counted.reads, readsAfterFetch + 1, "read again once the copy is a second old");
      assert.equal(platform.fetches, 1);
    });

    it("never serves a copy past the token's refresh point", async () => {
      const platform = new FakePlatform("ordinary");
      const tokens = new PlatformTokenService(fakePlatformApps([{ platform: "fake", app: "default", client: platform.client() }]), cache, createLogger({ level: "silent" }), {
        refreshMarginSec: 300,
        lockWaitMs: 2000,
        copyTtlMs: 86_400_000, // longer than the token lives: only the refresh point can end it
        now: () => clock,
      });
      const first = (await tokens.getAccessToken("fake", "default")).access_token;
      clock += (7200 - 300) * 1000; // the refresh point, well within the copy's day
      assert.notEqual((await tokens.getAccessToken("fake", "default")).access_token, first);
      assert.equal(platform.fetches, 2);
    });

    it("a token replaced in one process is what the other serves next, as soon as the change is announced", async () => {
      const platform = new FakePlatform("ordinary");
      const { a, b } = twoProcesses(platform);
      const dead = (await a.getAccessToken("fake", "default")).access_token;
      assert.equal((await b.getAccessToken("fake", "default")).access_token, dead, "b keeps a copy of it");
      platform.cancelCurrent();
      const healed = (await a.invalidate("fake", "default", dead)).access_token;
      assert.notEqual(healed, dead);
      assert.equal((await b.getAccessToken("fake", "default")).access_token, healed);
      assert.equal(platform.fetches, 2);
    });

    it("without the announcement (a lost message), the other process serves its copy for at most a second", async () => {
      const platform = new FakePlatform("ordinary");
      const { a, b } = twoProcesses(platform, false);
      const dead = (await a.getAccessToken("fake", "default")).access_token;
      await b.getAccessToken("fake", "default");
      const healed = (await a.invalidate("fake", "default", dead)).access_token;
      assert.equal((await b.getAccessToken("fake", "default")).access_token, dead, "the copy, within its second");
      assert.equal((await b.invalidate("fake", "default", dead)).access_token, healed, "a report reads the cache: the new token");
      assert.equal((await b.getAccessToken("fake", "default")).access_token, healed, "and the copy follows it");
    });

    it("a cache read in flight when a change is announced does not keep its answer", async () => {
      const platform = new FakePlatform("ordinary");
      const { a, b } = twoProcesses(platform);
      const dead = (await a.getAccessToken("fake", "default")).access_token;
      clock += 1001; // b has no copy, a's is stale: both read the cache next
      const counted = countReads();
      counted.hold = true;
      const slow = b.getAccessToken("fake", "default"); // reads the old entry, then waits
      await new Promise((resolve) => setImmediate(resolve));
      const healed = (await a.invalidate("fake", "default", dead)).access_token;
      counted.release();
      assert.equal((await slow).access_token, dead, "that request answers what it read");
      assert.equal((await b.getAccessToken("fake", "default")).access_token, healed, "but the next one reads the cache again");
    });
  });

  describe("per app", () => {
    /** Two apps of one platform, as the container builds them: each its own client and app id. */
    function appsOf(defaultApp: FakePlatform, puzzleApp: FakePlatform) {
      return fakePlatformApps([
        { platform: "fake", app: "default", appId: "app-a", client: defaultApp.client() },
        { platform: "fake", app: "puzzle", appId: "app-b", client: puzzleApp.client() },
      ]);
    }
    const process = (defaultApp: FakePlatform, puzzleApp: FakePlatform) =>
      new PlatformTokenService(appsOf(defaultApp, puzzleApp), cache, createLogger({ level: "silent" }), { refreshMarginSec: 300, lockWaitMs: 2000, now: () => clock, metrics });

    it("fetches each app's token once across two processes, under a cache key per platform app id", async () => {
      const [defaultApp, puzzleApp] = [new FakePlatform("ordinary"), new FakePlatform("ordinary")];
      const [one, two] = [process(defaultApp, puzzleApp), process(defaultApp, puzzleApp)];
      const answers = await Promise.all(
        [one, two].flatMap((p) => [p.getAccessToken("fake", "default"), p.getAccessToken("fake", "puzzle"), p.getAccessToken("fake", "default")]),
      );
      assert.deepEqual([defaultApp.fetches, puzzleApp.fetches], [1, 1], "one upstream fetch per app");
      assert.equal(answers.length, 6);
      assert.ok(await cache.get("platform_access_token:fake:app-a"), "the key it had before apps, for the default app");
      assert.ok(await cache.get("platform_access_token:fake:app-b"));
      assert.equal(await counterValue(metrics, "platform_access_token_requests_total", { platform: "fake", app: "puzzle", result: "fetch" }), 1);
    });

    it("heals a cancelled token of one app without touching the other's", async () => {
      const [defaultApp, puzzleApp] = [new FakePlatform("stable"), new FakePlatform("stable")];
      const tokens = process(defaultApp, puzzleApp);
      const kept = (await tokens.getAccessToken("fake", "default")).access_token;
      const dead = (await tokens.getAccessToken("fake", "puzzle")).access_token;
      puzzleApp.cancelCurrent();
      const answer = await tokens.withPlatformToken("fake", "puzzle", puzzleApp.business);
      assert.notEqual(answer, dead);
      assert.equal(await tokens.withPlatformToken("fake", "default", defaultApp.business), kept);
      assert.deepEqual([defaultApp.fetches, puzzleApp.fetches], [1, 2]);
      assert.equal(await counterValue(metrics, "platform_access_token_invalidations_total", { platform: "fake", app: "default" }), 0);
      assert.equal(await counterValue(metrics, "platform_access_token_invalidations_total", { platform: "fake", app: "puzzle" }), 1);
    });

    it("refuses an app that is not on the platform", async () => {
      const tokens = process(new FakePlatform("ordinary"), new FakePlatform("ordinary"));
      await assert.rejects(tokens.getAccessToken("fake", "racing"), (err: unknown) => err instanceof AppError && err.code === "unknown_app");
      await assert.rejects(tokens.getAccessToken("other", "default"), (err: unknown) => err instanceof AppError && err.code === "unknown_platform");
    });
  });
});
