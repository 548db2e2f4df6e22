/** The API description's account, session and user operations. */
import * as s from "../schemas";
import { PASSWORD_BUDGET_NOTE, SESSION_NOTE } from "./descriptions";
import { AUTH_ERRORS, type OperationSpec } from "./operation-spec";

export function accountOperations(placeholderEmailDomain: string): OperationSpec[] {
  const password = { currentPassword: "correct horse", newPassword: "battery staple" };
  return [
    {
      method: "post",
      path: "/api/auth/register",
      operationId: "register",
      tag: "Accounts",
      summary: "Register an account",
      description:
        `Creates an account and starts its session (201). Usernames start with a letter; the \`mg_\` prefix is ` +
        `reserved for mini-game users. Usernames and emails are unique ignoring letter case (\`Carol\` and \`carol\` ` +
        `are one account: 409 \`account_exists\`); the username keeps the form it was registered with. Emails are ` +
        `trimmed and lower-cased; \`@${placeholderEmailDomain}\` is reserved.`,
      body: { schema: s.registerBody(placeholderEmailDomain), examples: { account: { username: "carol", email: "carol@example.com", password: "correct horse" } } },
      success: { status: 201, component: "SessionResponse", description: "Registered and logged in" },
      errors: ["account_exists", "rate_limited"],
    },
    {
      method: "post",
      path: "/api/auth/login",
      operationId: "accountLogin",
      tag: "Accounts",
      summary: "Log in with a password",
      description:
        "Send exactly one of `username` or `email` (both matched ignoring letter case) with the password. A wrong " +
        `password and an unknown account get the same answer.\n\n${PASSWORD_BUDGET_NOTE}\n\n${SESSION_NOTE}`,
      body: {
        schema: s.loginBody,
        examples: { byUsername: { username: "carol", password: "correct horse" }, byEmail: { email: "carol@example.com", password: "correct horse" } },
      },
      success: { status: 200, component: "SessionResponse", description: "Logged in" },
      errors: ["invalid_credentials", "user_disabled", "rate_limited"],
    },
    {
      method: "post",
      path: "/api/auth/refresh",
      operationId: "refresh",
      tag: "Accounts",
      summary: "Rotate the token pair",
      description:
        "Each refresh token works once and yields a new pair in the same session. If the same refresh token comes " +
        "again within REFRESH_GRACE_SEC (default 10 s), the answer is the pair its rotation produced, so a client " +
        "that lost the response stays logged in. Later, it counts as theft: the session ends (`refresh_token_reused`).",
      body: { schema: s.refreshBody, examples: { refresh: { refreshToken: "<data.refreshToken of a login>" } } },
      success: { status: 200, component: "TokenPairResponse", description: "A new pair; the previous access token stops working" },
      errors: ["refresh_token_invalid", "refresh_token_reused", "user_disabled", "rate_limited"],
    },
    {
      method: "post",
      path: "/api/auth/logout",
      operationId: "logout",
      tag: "Accounts",
      summary: "End the session",
      description:
        "Ends the token's session: its access and refresh tokens stop working, and the server closes the user's room connections " +
        "of that app. The player's sessions in the studio's other games go on.",
      security: "bearer",
      success: { status: 200, component: "LogoutResponse", description: "Logged out; `data` is empty" },
      errors: [...AUTH_ERRORS],
    },
    {
      method: "get",
      path: "/api/users/me",
      operationId: "getMe",
      tag: "Users",
      summary: "The logged-in user",
      description: "The user of the token (spec 2.3), and `app`, the game the token's session is of. The password is never part of it.",
      security: "bearer",
      success: { status: 200, component: "MeResponse", description: "The user and the session's app" },
      errors: [...AUTH_ERRORS],
    },
    {
      method: "patch",
      path: "/api/users/me",
      operationId: "updateMe",
      tag: "Users",
      summary: "Update nickname or avatar",
      description:
        "Optimistic locking: send the `version` you read; if the user changed since, the answer is 409 " +
        "`version_conflict` and you should reload. `null` clears a field; an absent field is left as it is. " +
        "No other fields are accepted. `nickname` and `avatar` follow the text rule (see **Names, chat and seats** " +
        "above): a nickname with control, bidi-override or invisible characters, or an avatar that is not a plain https " +
        "URL, gets 400 `invalid_request`. A new `nickname` then goes through content security (the platform of the " +
        "player's identity checks it as profile text: WeChat msgSecCheck v2 " +
        "scene 1, Douyin antidirt, QQ MsgSecCheck; players with only a password and Kuaishou players against the " +
        "server's word list): risky text is 422 `content_moderated` and nothing changes. While the platform's check " +
        "is unavailable the word list decides, or with CONTENT_CHECK_FALLBACK=refuse the answer is 502 " +
        "`platform_unavailable`.",
      security: "bearer",
      body: { schema: s.profilePatchBody, examples: { profile: { nickname: "Ace", avatar: "https://cdn.example.com/a.png", version: 1 } } },
      success: { status: 200, component: "UserResponse", description: "The updated user (`version` + 1)" },
      errors: [...AUTH_ERRORS, "version_conflict", "content_moderated", "platform_unavailable"],
    },
    {
      method: "put",
      path: "/api/users/me/password",
      operationId: "changePassword",
      tag: "Users",
      summary: "Set or change the password",
      description:
        "A mini-game user's password is random and unknown: they may set a first one without `currentPassword`, " +
        "but only with a token from a login less than RECENT_LOGIN_SEC (10 min) old (`recent_login_required`). " +
        "Afterwards `currentPassword` is required. The session ends and a new one starts: use the returned token. " +
        "Needs a full-grade session: an anonymous Douyin login (`anonymous_code` alone) gets `login_grade_insufficient`. " +
        `A \`currentPassword\` check spends the account's password budget.\n\n${PASSWORD_BUDGET_NOTE}`,
      security: "bearer",
      body: { schema: s.passwordChangeBody, examples: { firstPassword: { newPassword: password.newPassword }, change: password } },
      success: { status: 200, component: "SessionResponse", description: "Changed; a new session" },
      errors: [...AUTH_ERRORS, "invalid_credentials", "recent_login_required", "login_grade_insufficient", "rate_limited"],
    },
    {
      method: "delete",
      path: "/api/users/me",
      operationId: "deleteMe",
      tag: "Users",
      summary: "Delete the account",
      description:
        "Erases the logged-in user for good (the player's right to deletion): the user, its platform identities, " +
        "its sessions in every app, its wallet, inventory and ledger, its mail, mail claims, ad views and leaderboard " +
        "records. The sessions end first, so the token stops working and the user's room connections close; a write " +
        "of the player's that was already in flight is removed and answers 403 `user_disabled`, and after this answer " +
        "every request with the player's tokens answers 403 `user_disabled` too. Needs a token from a login " +
        "less than RECENT_LOGIN_SEC (10 min) old (`recent_login_required`): log in again first. An anonymous-grade " +
        "session may erase only an account whose one way in is that anonymous id (`login_grade_insufficient`). A later login with " +
        "the same platform account creates a new, empty user.",
      security: "bearer",
      success: { status: 200, component: "DeletedResponse", description: "Deleted; `data` is null" },
      errors: [...AUTH_ERRORS, "login_grade_insufficient", "recent_login_required"],
    },
  ];
}

