/**
 * The platforms' storage rules as the simulator enforces them (platform-apis-3.md §4), whole list or
 * nothing: a write whose result would hold more keys than allowed, or with an entry past the byte
 * limits, changes nothing; a removal naming a key the player does not have removes nothing.
 */
import type { StorageLimits } from "../platforms/social-port";
import type { SocialSimState } from "./social-state";
import { utf8Bytes } from "./signed-request";

export type StorageOutcome = "ok" | "key_too_long" | "entry_too_long" | "full" | "keys_missing";

export function applyStorageWrite(
  state: SocialSimState,
  player: { platform: string; openid: string },
  entries: ReadonlyArray<{ key: string; value: string }>,
  limits: StorageLimits,
): StorageOutcome {
  for (const { key, value } of entries) {
    if (!key || utf8Bytes(key) > limits.maxKeyBytes) return "key_too_long";
    if (utf8Bytes(key) + utf8Bytes(value) > limits.maxEntryBytes) return "entry_too_long";
  }
  const next = new Map(state.storageOf(player.platform, player.openid));
  for (const { key, value } of entries) next.set(key, value);
  if (next.size > limits.maxKeys) return "full";
  state.replaceStorage(player.platform, player.openid, next);
  return "ok";
}

export function applyStorageRemoval(state: SocialSimState, player: { platform: string; openid: string }, keys: readonly string[]): StorageOutcome {
  const next = new Map(state.storageOf(player.platform, player.openid));
  if (keys.some((key) => !next.has(key))) return "keys_missing";
  for (const key of keys) next.delete(key);
  state.replaceStorage(player.platform, player.openid, next);
  return "ok";
}
