/**
 * Two copies of one LeanCloud record imported at once (an export that repeats a row, read within
 * one window): over a store that answers a repeated attach of an identity to the same user as done
 * (the MongoDB store must: a retried write whose answer was lost), both copies once counted `merged`.
 * Copies of one objectId now go one after the other: one `merged`, one `already`, one identity.
 */
import assert from "node:assert/strict";
import type { PlatformIdentityKey, User } from "../../src/core/user";
import { PlayerImporter } from "../../src/services/migration/player-importer";
import { MemoryUserStore } from "../support/memory-user-store";

/** As the MongoDB store: attaching an identity the same user already holds answers the user; reads take a while. */
class RepeatableAttachStore extends MemoryUserStore {
  override async findByIdentity(identity: PlatformIdentityKey): Promise<User | null> {
    await new Promise((resolve) => setTimeout(resolve, 5));
    return super.findByIdentity(identity);
  }
  override async attachIdentity(userId: string, identity: PlatformIdentityKey, options: { asPrimary: boolean }): Promise<User | null> {
    const holder = await super.findByIdentity(identity);
    if (holder?.id === userId) return holder;
    return super.attachIdentity(userId, identity, options);
  }
}

describe("LeanCloud import: copies of one record at once", () => {
  it("one merged, one already, and the objectId attached once", async () => {
    const store = new RepeatableAttachStore();
    const owner = await store.createUser({ id: "u1", username: "wx_u1", email: "u1@players.invalid", passwordHash: "x", openid: "oWechat1", createdAt: new Date().toISOString() } as never, [{ platform: "wechat", platformId: "oWechat1" }]);
    const importer = new PlayerImporter(store, { key: "default", platformAppIds: { wechat: "wx1" }, appsOnPlatform: { wechat: 1 }, keyOrder: { wechat: ["openid"] }, linkAppsByUnionid: true, placeholderEmailDomain: "players.invalid" });
    const player = { objectId: "lc1", identities: [{ platform: "wechat", openid: "oWechat1" }] };
    const outcomes = await Promise.all([importer.importPlayer(player), importer.importPlayer(player)]);
    assert.deepEqual(outcomes.map((o) => o.kind).sort(), ["already", "merged"]);
    assert.ok(outcomes.every((o) => "userId" in o && o.userId === owner.id));
    assert.equal((await store.findByIdentity({ platform: "leancloud", platformId: "lc1" }))?.id, owner.id);
  });
});
