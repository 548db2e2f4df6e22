/**
 * What a session's grade allows. Anonymous-grade sessions (a Douyin device id alone) keep the
 * player's progress reachable, but they cannot take an account over: whoever holds the device
 * would otherwise set its first password, or erase it, and keep it from anywhere.
 */
import { AppError } from "../core/errors";
import type { UserStore } from "../core/ports/user-store";
import type { SessionGrade } from "./token-signer";

export interface GradedSession {
  userId: string;
  grade: SessionGrade;
}

/** Throws 403 `login_grade_insufficient` unless the session came from a platform code or a password. */
export function requireFullGrade(session: GradedSession): void {
  if (session.grade !== "full") throw new AppError("login_grade_insufficient");
}

/**
 * For erasing the account: a full-grade session, or an anonymous-grade one whose account has no
 * other way in than that anonymous id (exactly one platform identity, no password its owner chose).
 * An anonymous-grade session only ever finds its user through its anonymous id, so when the user
 * has a single identity, it is that one: nobody else's progress is at stake.
 */
export async function requireGradeToErase(
  session: GradedSession,
  store: Pick<UserStore, "listIdentities" | "findCredentialsById">,
): Promise<void> {
  if (session.grade === "full") return;
  const [identities, credentials] = await Promise.all([store.listIdentities(session.userId), store.findCredentialsById(session.userId)]);
  const onlyWayIn = identities.length === 1 && credentials !== null && credentials.passwordSetAt === null;
  if (!onlyWayIn) throw new AppError("login_grade_insufficient");
}
