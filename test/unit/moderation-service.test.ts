import assert from "node:assert/strict";
import { fakePlatformApps } from "../support/platform-apps";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseConfig } from "../../src/config/config";
import { buildServices, StartupError } from "../../src/server/container";
import { MemoryCache } from "../../src/adapters/cache/memory-cache";
import { AppError } from "../../src/core/errors";
import type { UserStore } from "../../src/core/ports/user-store";
import type { PlatformIdentityKey } from "../../src/core/user";
import { createLogger } from "../../src/logging/logger";
import type { PlatformClient, TextCheck, TextVerdict } from "../../src/platforms/platform";
import { ModerationService, type ModerationOptions } from "../../src/services/moderation-service";
import { PlatformTokenService } from "../../src/services/platform-token-service";
import { SessionKeyCustody } from "../../src/services/session-key-custody";
import { TtlLru } from "../../src/services/ttl-lru";
import { parseWordListFile, WordList } from "../../src/services/word-list";

const logger = createLogger({ level: "silent" });

/** A platform whose check answers `verdict`, or throws `failure`, and records what it was asked. */
class FakeChecker {
  calls: TextCheck[] = [];
  verdict: TextVerdict = "pass";
  failure: Error | undefined;

  client(withCheck = true): PlatformClient {
    return {
      platform: "fake",
      tokenApi: "ordinary",
      exchangeCode: () => Promise.reject(new Error("not used")),
      fetchAccessToken: async () => ({ accessToken: "tok", expiresInSec: 7200 }),
      ...(withCheck && {
        checkText: async (check: TextCheck) => {
          this.calls.push(check);
          if (this.failure) throw this.failure;
          return this.verdict;
        },
      }),
    };
  }
}

describe("ModerationService", () => {
  let clock: number;
  let checker: FakeChecker;
  let identities: Record<string, PlatformIdentityKey[]>;
  let custody: SessionKeyCustody;
  let cache: MemoryCache;

  function service(options: Partial<ModerationOptions> = {}, withCheck = true) {
    cache = new MemoryCache();
    custody = new SessionKeyCustody(cache, 3600);
    const client = checker.client(withCheck);
    const tokens = new PlatformTokenService(fakePlatformApps([{ platform: "fake", client }]), cache, logger, { refreshMarginSec: 300, lockWaitMs: 1000, now: () => clock });
    const store = { listIdentities: async (userId: string) => identities[userId] ?? [] } as unknown as UserStore;
    return new ModerationService(fakePlatformApps([{ platform: "fake", client }]), store, custody, tokens, new WordList(["badword"]), logger, {
      enabled: true,
      fallback: "word_list",
      cacheTtlSec: 60,
      cacheEntries: 100,
      now: () => clock,
      ...options,
    });
  }

  beforeEach(() => {
    clock = Date.UTC(2026, 0, 1);
    checker = new FakeChecker();
    identities = { player: [{ platform: "fake", platformId: "stored-openid" }], elsewhere: [{ platform: "disabled", platformId: "x" }] };
  });

  it("asks the player's platform, with the openid of their latest login there, else the stored identity", async () => {
    const moderation = service();
    checker.verdict = "review";
    assert.deepEqual(await moderation.check("player", "default", "hi", "chat"), { verdict: "review", source: "platform", platform: "fake" });
    assert.equal(checker.calls[0].openid, "stored-openid");
    const kept = await custody.entryFor("player", "default", { platform: "fake", openid: "recent-openid", sessionKey: "k" });
    await cache.setMany([kept!]);
    await moderation.check("player", "default", "another", "profile");
    assert.deepEqual([checker.calls[1].openid, checker.calls[1].scene, checker.calls[1].accessToken], ["recent-openid", "profile", "tok"]);
  });

  it("reuses a platform verdict for identical text and scene until the cache time ends", async () => {
    const moderation = service();
    checker.verdict = "risky";
    await moderation.check("player", "default", "spam", "chat");
    assert.equal((await moderation.check("player", "default", "spam", "chat")).source, "cache");
    await moderation.check("player", "default", "spam", "profile");
    assert.equal(checker.calls.length, 2, "another scene is another question");
    clock += 61_000;
    assert.equal((await moderation.check("player", "default", "spam", "chat")).source, "platform");
  });

  it("uses the word list for players without an enabled platform identity and platforms without a check", async () => {
    for (const [moderation, user] of [
      [service(), "password-only"],
      [service(), "elsewhere"],
      [service({}, false), "player"],
    ] as const) {
      assert.deepEqual(await moderation.check(user, "default", "a BADWORD here", "chat"), { verdict: "risky", source: "word_list", platform: user === "player" ? "fake" : null });
      assert.equal((await moderation.check(user, "default", "fine", "chat")).verdict, "pass");
    }
    assert.equal(checker.calls.length, 0);
  });

  it("falls back to the word list when the check fails, and never caches that verdict", async () => {
    const moderation = service();
    checker.failure = new AppError("platform_rate_limited");
    assert.deepEqual(await moderation.check("player", "default", "badword", "chat"), { verdict: "risky", source: "word_list", platform: "fake" });
    assert.equal((await moderation.check("player", "default", "simulator-risky", "chat")).verdict, "pass");
    checker.failure = undefined;
    checker.verdict = "risky";
    assert.equal((await moderation.check("player", "default", "simulator-risky", "chat")).source, "platform");
  });

  it("with CONTENT_CHECK_FALLBACK=refuse, a failed check refuses the text with the platform's error", async () => {
    const moderation = service({ fallback: "refuse" });
    checker.failure = new AppError("platform_unavailable", { data: { reason: "timeout" } });
    await assert.rejects(moderation.requireAcceptable("player", "default", "hello", "chat"), (err: unknown) => err instanceof AppError && err.code === "platform_unavailable");
  });

  it("throws content_moderated for risky text only; a bug in a client is not hidden by the fallback", async () => {
    const moderation = service();
    checker.verdict = "risky";
    await assert.rejects(moderation.requireAcceptable("player", "default", "x", "profile"), (err: unknown) => err instanceof AppError && err.code === "content_moderated" && err.status === 422);
    checker.verdict = "review";
    assert.equal((await moderation.requireAcceptable("player", "default", "y", "profile")).verdict, "review");
    checker.failure = new TypeError("bug");
    await assert.rejects(moderation.check("player", "default", "z", "chat"), TypeError);
  });

  it("passes everything, asking no one, when turned off", async () => {
    const moderation = service({ enabled: false });
    assert.deepEqual(await moderation.check("player", "default", "badword", "chat"), { verdict: "pass", source: "off", platform: null });
    assert.equal(checker.calls.length, 0);
  });
});

describe("TtlLru", () => {
  it("forgets entries past their lifetime and the least recently used one past its size", () => {
    let clock = 0;
    const lru = new TtlLru<number>(2, 1000, () => clock);
    lru.set("a", 1);
    lru.set("b", 2);
    assert.equal(lru.get("a"), 1); // a is now the most recently used
    lru.set("c", 3);
    assert.deepEqual([lru.get("a"), lru.get("b"), lru.get("c")], [1, undefined, 3]);
    clock += 1000;
    assert.equal(lru.get("a"), undefined);
    const off = new TtlLru<number>(0, 1000, () => clock);
    off.set("a", 1);
    assert.equal(off.get("a"), undefined, "size 0 turns it off");
  });
});

describe("WordList", () => {
  it("ignores case, full-width forms, spaces and invisible characters", () => {
    const list = new WordList(["Bad Word", " ", ""]);
    assert.equal(list.size, 1);
    for (const text of ["badword", "a BADWORD!", "Ｂａｄ ｗｏｒｄ", "b a d\u200bword"]) assert.equal(list.matches(text), true, text);
    assert.equal(list.matches("bad words aside"), true);
    assert.equal(list.matches("good word"), false);
    assert.equal(new WordList([]).matches("anything"), false);
  });

  it("reads one entry per line from a file, skipping blanks and # comments", () => {
    assert.deepEqual(parseWordListFile("# list\r\nfoo\n\n  bar  \n#baz\n"), ["foo", "bar"]);
  });
});

describe("the word-list file at boot", () => {
  it("refuses to start when CONTENT_CHECK_WORDS_FILE cannot be read, naming the setting", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "words-"));
    try {
      const config = parseConfig({ SQLITE_PATH: path.join(dir, "users.sqlite"), CONTENT_CHECK_WORDS_FILE: path.join(dir, "missing.txt") });
      await assert.rejects(buildServices(config, logger), (err: unknown) => err instanceof StartupError && /CONTENT_CHECK_WORDS_FILE/.test(err.message));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
