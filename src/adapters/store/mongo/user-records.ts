/** A user's document as the export shows it: every stored field but the hash, identities with their dates. */
import type { StoredIdentity } from "../../../core/ports/user-store";
import type { MongoModels, UserDoc } from "./mongo-models";
import { identityClaimsOf } from "./user-erase";

/** Every stored field but the hash and the store's own bookkeeping, as the SQL stores export columns. */
export function exportedFields(stored: UserDoc): Record<string, unknown> {
  const { _id, passwordHash: _hash, usernameNorm: _u, emailNorm: _e, deletingAt: _d, ...fields } = stored;
  const user: Record<string, unknown> = { id: _id };
  for (const [key, value] of Object.entries(fields)) user[key] = value instanceof Date ? value.toISOString() : value;
  return user;
}

/** The user's identities with when each was linked, oldest first (then by platform and id). */
export async function storedIdentities(models: MongoModels, user: UserDoc): Promise<StoredIdentity[]> {
  const claims = await identityClaimsOf(models, user);
  return claims
    .map((c) => ({ platform: c.platform, platformId: c.platformId, createdAt: c.createdAt.toISOString() }))
    .sort((a, b) => compare(a.createdAt, b.createdAt) || compare(a.platform, b.platform) || compare(a.platformId, b.platformId));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
