import type { UserStore } from "../../core/ports/user-store";
import type { KeptKeys, PlayerOpenids } from "./social-ports";

/**
 * A player's openid on one app: the one of their latest login there (kept with the session key),
 * else the stored identity of that app's namespace (its key is the openid unless the login gave only
 * a unionid, or, on Douyin, only an anonymous id: the platform then refuses the send, which the
 * service reports). Nothing else is kept per player, so no cache of ours can disagree with the store.
 */
export class StoredPlayerOpenids implements PlayerOpenids {
  constructor(
    private readonly store: Pick<UserStore, "findById" | "listIdentities">,
    private readonly keys: KeptKeys,
    /** The store namespace of the app's ids on that platform (PlatformApps.namespaceOf); undefined when the app is not on it. */
    private readonly namespaceOf: (platform: string, app: string) => string | undefined,
  ) {}

  async openidOf(platform: string, app: string, userId: string): Promise<string | null> {
    const kept = await this.keys.read(userId, app);
    if (kept?.platform === platform && kept.openid) return kept.openid;
    if (!(await this.store.findById(userId))) return null;
    const namespace = this.namespaceOf(platform, app);
    const identity = namespace === undefined ? undefined : (await this.store.listIdentities(userId)).find((i) => i.platform === namespace);
    return identity?.platformId ?? "";
  }

  async latestPlatform(userId: string, app: string): Promise<string | undefined> {
    return (await this.keys.read(userId, app))?.platform;
  }
}
