/**
 * MuteService: the store holds the mute, the cache a copy the rooms read. A mute or unmute wins
 * over a room's older read that fills the cache late; an emptied cache (a restart) asks the store;
 * a mute ends by the clock without a write.
 */
import assert from "node:assert/strict";
import { MemoryCache } from "../../src/adapters/cache/memory-cache";
import { MuteService, muteCacheKey } from "../../src/services/mute-service";
import { newPlatformUser } from "../../src/services/user-factory";
import { rejectsWith } from "../support/app-error";
import { MemoryUserStore } from "../support/memory-user-store";

describe("MuteService", () => {
  let clock = Date.parse("2030-01-01T00:00:00.000Z");
  const now = () => clock;
  let store: MemoryUserStore;
  let cache: MemoryCache;
  let mutes: MuteService;
  let userId: string;

  beforeEach(async () => {
    clock = Date.parse("2030-01-01T00:00:00.000Z");
    store = new MemoryUserStore(now);
    cache = new MemoryCache({ now });
    mutes = new MuteService(store, cache, now);
    userId = (await store.createUser(newPlatformUser("wechat", `o-${Math.random()}`, "players.invalid", new Date(clock)), [])).id;
  });
  afterEach(() => cache.close());

  it("refuses while muted with `muted` and the end, and lets through after unmute", async () => {
    await mutes.requireUnmuted(userId);
    const mute = await mutes.mute(userId, { reason: "spam", durationSec: 600 });
    assert.equal(mute.until, "2030-01-01T00:10:00.000Z");
    await assert.rejects(mutes.requireUnmuted(userId), rejectsWith("muted", (err) => assert.equal(err.data.until, mute.until)));
    await mutes.unmute(userId);
    await mutes.requireUnmuted(userId);
    assert.equal(await mutes.find(userId), null);
  });

  it("overwrites a 'not muted' a room cached a moment before: the mute applies at once", async () => {
    assert.equal(await mutes.mutedUntil(userId), null); // cached as not muted
    await mutes.mute(userId, { reason: "spam", durationSec: 60 });
    assert.equal(await mutes.mutedUntil(userId), "2030-01-01T00:01:00.000Z");
  });

  it("keeps a mute written while a room's store read was in flight (the late fill loses)", async () => {
    const read = store.findMute.bind(store);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    store.findMute = async (id) => {
      const answer = await read(id); // reads "not muted"
      await gate;
      return answer;
    };
    const inFlight = mutes.mutedUntil(userId);
    await new Promise((r) => setImmediate(r));
    store.findMute = read;
    await mutes.mute(userId, { reason: "spam", durationSec: 60 });
    release();
    assert.equal(await inFlight, null, "the old read answers what it read");
    assert.equal(await mutes.mutedUntil(userId), "2030-01-01T00:01:00.000Z", "the next chat is refused");
  });

  it("reads the store when the cache lost the copy (a restarted memory cache), and ends by the clock", async () => {
    await mutes.mute(userId, { reason: "spam", durationSec: 60 });
    await cache.delete(muteCacheKey(userId));
    store.calls.length = 0;
    assert.equal(await mutes.mutedUntil(userId), "2030-01-01T00:01:00.000Z");
    assert.equal(await mutes.mutedUntil(userId), "2030-01-01T00:01:00.000Z");
    assert.deepEqual(store.calls, ["findMute"], "one store read, then the cache");
    clock += 60_000;
    assert.equal(await mutes.mutedUntil(userId), null);
  });

  it("answers a player's concurrent asks with one lookup, in the order they came (chat lines keep their order)", async () => {
    store.calls.length = 0;
    const order: number[] = [];
    await Promise.all([1, 2, 3].map((n) => mutes.mutedUntil(userId).then(() => order.push(n))));
    assert.deepEqual(order, [1, 2, 3]);
    assert.deepEqual(store.calls, ["findMute"], "one store read for the three");
  });

  it("refuses a missing player and a duration out of bounds", async () => {
    await assert.rejects(mutes.mute("nobody", { reason: "x", durationSec: 60 }), rejectsWith("user_disabled"));
    await assert.rejects(mutes.unmute("nobody"), rejectsWith("user_disabled"));
    await assert.rejects(mutes.mute(userId, { reason: "x", durationSec: 0 }), rejectsWith("invalid_request"));
  });
});
