/** The local user as the API returns it (spec 2.3). The password hash is never part of it. */
export interface User {
  id: string;
  username: string;
  email: string;
  nickname: string | null;
  avatar: string | null;
  /** The platform key the user was found or created by; null for registered accounts. */
  openid: string | null;
  guildId: string | null;
  status: number;
  /** ISO 8601 UTC, millisecond precision. */
  createdAt: string;
  updatedAt: string;
  version: number;
}

export const USER_STATUS_ACTIVE = 1;
/** Set by an operator's disable or ban; a ban with an end time reads as active once it has passed. */
export const USER_STATUS_DISABLED = 2;

/** A platform identifier that leads to a user: unique per (platform, platformId). */
export interface PlatformIdentityKey {
  platform: string;
  platformId: string;
}
