import assert from "node:assert/strict";
import type { User } from "../../src/core/user";
import { RecentUsers } from "../../src/services/recent-users";

function user(id: string, status = 1, nickname: string | null = null): User {
  const at = "2026-01-01T00:00:00.000Z";
  return { id, username: `u_${id}`, email: `${id}@x.invalid`, nickname, avatar: null, openid: null, guildId: null, status, createdAt: at, updatedAt: at, version: 1 };
}

describe("RecentUsers (per-process user records for token verification)", () => {
  let clock = 1_000_000;
  const now = () => clock;

  it("serves an active user from memory until its time is up, then reads again", async () => {
    const recent = new RecentUsers({ ttlMs: 5000, maxEntries: 10, now });
    let reads = 0;
    const load = async (id: string) => (reads++, user(id));
    await recent.find("a", load);
    await recent.find("a", load);
    assert.equal(reads, 1);
    clock += 5000;
    await recent.find("a", load);
    assert.equal(reads, 2);
  });

  it("never keeps a disabled or missing user, so a ban and its end are read from the store every time", async () => {
    const recent = new RecentUsers({ ttlMs: 5000, maxEntries: 10, now });
    let reads = 0;
    await recent.find("banned", async (id) => (reads++, user(id, 2)));
    await recent.find("banned", async (id) => (reads++, user(id, 2)));
    await recent.find("gone", async () => (reads++, null));
    await recent.find("gone", async () => (reads++, null));
    assert.equal(reads, 4);
    assert.equal(recent.size, 0);
  });

  it("drops a user on forget, and does not keep the answer of a read that was in flight when it forgot", async () => {
    const recent = new RecentUsers({ ttlMs: 5000, maxEntries: 10, now });
    await recent.find("a", async (id) => user(id, 1, "old"));
    recent.forget("a");
    assert.equal((await recent.find("a", async (id) => user(id, 1, "new")))!.nickname, "new");

    let release!: () => void;
    const slow = recent.find("b", async (id) => {
      await new Promise<void>((r) => (release = r));
      return user(id, 1, "before the change");
    });
    await new Promise((r) => setImmediate(r));
    recent.forget("b");
    release();
    await slow;
    assert.equal((await recent.find("b", async (id) => user(id, 1, "after the change")))!.nickname, "after the change");
  });

  it("holds at most maxEntries records, and none with a TTL of 0", async () => {
    const recent = new RecentUsers({ ttlMs: 5000, maxEntries: 3, now });
    for (const id of ["a", "b", "c", "d"]) await recent.find(id, async (i) => user(i));
    assert.equal(recent.size, 3);
    const off = new RecentUsers({ ttlMs: 0, maxEntries: 3, now });
    await off.find("a", async (i) => user(i));
    assert.equal(off.size, 0);
  });
});

describe("RecentUsers by platform identity (returning players' logins)", () => {
  const now = () => 1_000_000;
  const wechat = { platform: "wechat", platformId: "o-1" };

  it("answers a returning player from memory, and reads the store again once the user was forgotten", async () => {
    const recent = new RecentUsers({ ttlMs: 5000, maxEntries: 10, now });
    let reads = 0;
    const load = async () => (reads++, user("u1", 1, `read ${reads}`));
    await recent.findByIdentity(wechat, load);
    assert.equal((await recent.findByIdentity(wechat, load))!.nickname, "read 1");
    recent.forget("u1");
    assert.equal((await recent.findByIdentity(wechat, load))!.nickname, "read 2");
    assert.equal(reads, 2);
  });

  it("never remembers a disabled owner or an identity nobody holds yet", async () => {
    const recent = new RecentUsers({ ttlMs: 5000, maxEntries: 10, now });
    let reads = 0;
    await recent.findByIdentity(wechat, async () => (reads++, null));
    await recent.findByIdentity(wechat, async () => (reads++, user("u2", 2)));
    await recent.findByIdentity(wechat, async () => (reads++, user("u2", 2)));
    assert.equal(reads, 3);
  });
});
