/**
 * The operator's name searches on the users' head documents: the filter a head must match and the
 * check its newest version must pass too (a head may lag one write behind the user).
 */
import type { MongoModels, UserDoc } from "./mongo-models";

export interface UserNameQuery {
  filter: Record<string, unknown>;
  keep(user: UserDoc): boolean;
}

export const nicknameQuery = (nickname: string): UserNameQuery => ({ filter: { nickname }, keep: (u) => u.nickname === nickname });

/** Nickname or username containing `part`, letter case ignored; regex signs in `part` are plain text. */
export function namePartQuery(part: string): UserNameQuery {
  const contains = { $regex: part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), $options: "i" };
  const lower = part.toLowerCase();
  return {
    filter: { $or: [{ nickname: contains }, { username: contains }] },
    keep: (u) => [u.nickname, u.username].some((name) => typeof name === "string" && name.toLowerCase().includes(lower)),
  };
}

/** Candidates by their head document, each confirmed on its newest version (read by `readActive`). */
export async function confirmedHeads(models: MongoModels, readActive: (id: string) => Promise<UserDoc | null>, { filter, keep }: UserNameQuery, limit: number): Promise<UserDoc[]> {
  const heads = await models.collections.users.find(filter).sort({ createdAt: 1, _id: 1 }).limit(limit).toArray();
  const newest = await Promise.all(heads.map((head) => readActive(head._id)));
  return newest.filter((u): u is UserDoc => u !== null && keep(u));
}
