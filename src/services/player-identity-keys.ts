/**
 * Which identity keys a player of one app is stored and found under. One rule for every path that
 * finds or creates a player by their platform ids (the login, the LeanCloud import), so a player
 * brought in by one is found by the other.
 */
import type { PlatformIdentityKey } from "../core/user";
import type { UserKeyField } from "../platforms/platform";

/** Where an app's ids are stored (see identityNamespace in core/apps.ts). */
export interface IdentityNamespaces {
  /** This app's openids and anonymous ids. */
  own: string;
  /** The unionid: studio-wide when apps are linked by it, else the app's own. */
  union: string;
  /** Whether the unionid is stored beside the openid: only when another app can find the player by it. */
  linkUnion: boolean;
}

/**
 * `own` is the app's namespace (identityNamespace). Apps are linked by unionid only where the platform has several apps: with one, nothing new is
 * stored and a login finds exactly whom it found before apps existed.
 */
export function identityNamespaces(platform: string, own: string, appsOnPlatform: number, linkAppsByUnionid: boolean): IdentityNamespaces {
  const linkUnion = linkAppsByUnionid && appsOnPlatform > 1;
  return { own, union: linkUnion ? platform : own, linkUnion };
}

/** The ids a platform answered for a player (those a store key can be made of). */
export interface PlayerIds {
  unionid?: string;
  anonymousOpenid?: string;
}

export interface PlayerIdentityKeys {
  /** What the player is found by first: the key field the platform ranks first. */
  primary: PlatformIdentityKey;
  /** Douyin's anonymous id, when a code login also brought one: a second key of the same player. */
  anonymous?: PlatformIdentityKey;
  /** The studio-wide unionid key, when apps are linked by it. */
  union?: PlatformIdentityKey;
}

/** The keys of a player found by `found` (the first non-empty field in the platform's key order). */
export function playerIdentityKeys(ns: IdentityNamespaces, found: { key: string; field: UserKeyField }, ids: PlayerIds): PlayerIdentityKeys {
  const { key } = found;
  const primary: PlatformIdentityKey = { platform: found.field === "unionid" ? ns.union : ns.own, platformId: key };
  const anonymous = ids.anonymousOpenid && ids.anonymousOpenid !== key ? { platform: ns.own, platformId: ids.anonymousOpenid } : undefined;
  const union = ns.linkUnion && ids.unionid && found.field !== "unionid" ? { platform: ns.union, platformId: ids.unionid } : undefined;
  return { primary, anonymous, union };
}
