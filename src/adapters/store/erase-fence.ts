/**
 * The check every per-user write of the economy and reward stores makes after its insert (see
 * core/ports/erasure-marks.ts for why after): when the user's erase has begun, what the user has in
 * that store is removed, the write included, and the request is refused like any request of a user
 * that is gone (403 `user_disabled`).
 */
import { AppError } from "../../core/errors";
import type { ErasureMarks } from "../../core/ports/erasure-marks";

export const erasedUserError = () => new AppError("user_disabled", { message: "The account has been deleted" });

export interface EraseFence {
  marks: Pick<ErasureMarks, "isMarked">;
  /** Removes what the user has in the store doing the write. */
  erase(userId: string): Promise<void>;
}

/**
 * Runs `write`, then checks the mark, whether the write succeeded or failed (a failed write may
 * have been committed). A write that failed for a user not marked fails as it did.
 */
export async function fenced<T>(fence: EraseFence, userId: string, write: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await write();
  } catch (err) {
    if (await fence.marks.isMarked(userId).catch(() => false)) {
      await fence.erase(userId).catch(() => undefined);
      throw erasedUserError();
    }
    throw err;
  }
  if (await fence.marks.isMarked(userId)) {
    await fence.erase(userId);
    throw erasedUserError();
  }
  return result;
}
