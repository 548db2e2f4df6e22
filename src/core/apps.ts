/**
 * Apps: the games of one studio a deployment serves. Every call path names its app explicitly (an
 * argument, a claim, a key), never through ambient state. The app is known by its key: `default` for
 * the app of the platform settings (`WECHAT_APP_ID`…), the key of APPS_FILE for the others.
 */

/** The app of the platform settings; what every token, key and identity from before apps belongs to. */
export const DEFAULT_APP = "default";

/**
 * The stored `platform` of an identity (the store's namespace for platform ids). The default app's
 * ids stay under the bare platform name, as before apps existed, so existing data is the default
 * app's without a migration; another app's openids live under `<platform>@<platform app id>`, the
 * platform's own app id (not our key, which an operator may rename). A studio-wide unionid (apps
 * linked by unionid) lives under the bare name too: it is the same for every app of the studio.
 */
export function identityNamespace(platform: string, appId: string | null): string {
  return appId === null ? platform : `${platform}@${appId}`;
}

/** The platform and, for another app's id, its platform app id; inverse of identityNamespace. */
export function parseIdentityNamespace(namespace: string): { platform: string; appId: string | null } {
  const at = namespace.indexOf("@");
  return at === -1 ? { platform: namespace, appId: null } : { platform: namespace.slice(0, at), appId: namespace.slice(at + 1) };
}

/**
 * A per-user cache key of an app. The default app's is the spec's `<name>:<userId>` (interface spec
 * 5.5: other services of a studio read it); another app's adds `:<app>` after the user id.
 * `hashTagged` wraps the user id in braces (`<name>:{<userId>}`), a Redis Cluster hash tag: a user's
 * keys then share one slot, so a login's multi-key write stays one atomic script on a cluster. Only a
 * cluster needs it (see Cache.hashTags); earlier versions wrote it on every cache.
 */
export function perUserKey(name: string, userId: string, app: string, hashTagged = false): string {
  const user = hashTagged ? `{${userId}}` : userId;
  return app === DEFAULT_APP ? `${name}:${user}` : `${name}:${user}:${app}`;
}
