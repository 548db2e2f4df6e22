import { AppError } from "../core/errors";
import type { UserStore } from "../core/ports/user-store";
import { USER_STATUS_ACTIVE, type User } from "../core/user";

/**
 * The refusal for a missing or disabled user. A ban with an end says when it ends
 * (`data.disabledUntil`), so the game can tell the player; the reason stays with the operators.
 */
export async function userDisabledError(store: UserStore, userId: string | undefined): Promise<AppError> {
  const restriction = userId ? await store.findRestriction(userId) : null;
  return new AppError("user_disabled", restriction?.until ? { data: { disabledUntil: restriction.until } } : {});
}

/** The user, when it exists and is active (a ban whose end has passed counts as active). */
export async function requireActive(store: UserStore, user: User | null, userId: string): Promise<User> {
  if (user && user.status === USER_STATUS_ACTIVE) return user;
  throw await userDisabledError(store, user ? userId : undefined);
}
