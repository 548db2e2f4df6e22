/**
 * A player's platform identity as one game sees it. A user of several games (apps) has one openid
 * per game, but the user record keeps only the key of the first login (`users.openid`); wherever a
 * player's identity is shown for a token, it is the token's game's: the openid of their latest login
 * to that game (kept with its session key), else the one stored under that game's namespace.
 * Douyin games put this openid in a payment's extraInfo, which the callback looks up in that
 * game's namespace: the first game's openid there would refuse every purchase of the second.
 */
import type { UserStore } from "../core/ports/user-store";
import type { User } from "../core/user";
import type { PlatformApps } from "./platform-apps";
import type { SessionKeyCustody } from "./session-key-custody";

export class AppIdentities {
  constructor(
    private readonly apps: PlatformApps,
    private readonly store: Pick<UserStore, "listIdentities">,
    private readonly custody: Pick<SessionKeyCustody, "read">,
    /** The served platforms' names. */
    private readonly platforms: readonly string[],
  ) {}

  /** `user` with `openid` as the game `app` knows them; unchanged for accounts no platform login of that game found. */
  async userForApp(user: User, app: string): Promise<User> {
    const kept = await this.custody.read(user.id, app);
    if (kept?.openid) return withOpenid(user, kept.openid);
    if (user.openid === null) return user;
    const namespaces = new Set(
      this.platforms.flatMap((platform) => {
        const entry = this.apps.find(platform, app);
        return entry ? [this.apps.namespaceOf(entry)] : [];
      }),
    );
    const own = (await this.store.listIdentities(user.id)).filter((identity) => namespaces.has(identity.platform));
    // The stored key when it is this game's (a default app's namespace may also hold the unionid), else this game's first.
    if (own.length === 0 || own.some((identity) => identity.platformId === user.openid)) return user;
    return withOpenid(user, own[0].platformId);
  }
}

function withOpenid(user: User, openid: string): User {
  return user.openid === openid ? user : { ...user, openid };
}
