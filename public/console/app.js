// The console shell: sign-in, password change, navigation, and a small API client. Each screen is a
// module in ./screens/<id>.js exporting render(container, ctx); the server lists the screens an
// operator's role may see. Nothing is loaded from another host; text is set, never parsed as HTML.
const main = document.getElementById("main");
const nav = document.getElementById("nav");
const who = document.getElementById("who");
const statusBox = document.getElementById("status");
let csrfToken = "";

export class ApiError extends Error {
  constructor(status, envelope) {
    super(envelope?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = envelope?.data?.code;
  }
}

export async function api(method, path, body) {
  const headers = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (method !== "GET") headers["x-csrf-token"] = csrfToken;
  const res = await fetch(`/console/api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: "same-origin" });
  const envelope = await res.json().catch(() => null);
  if (!res.ok || !envelope?.success) {
    // The session ended (expired, signed out elsewhere, operator disabled): back to the sign-in form.
    if (res.status === 401 && envelope?.data?.code === "console_sign_in_required" && path !== "/session") setTimeout(() => signInForm("Your session has ended; sign in again."), 0);
    throw new ApiError(res.status, envelope);
  }
  return envelope.data;
}

/**
 * The grant, debit and mail ids' pattern attribute. The hyphen is escaped: browsers compile a pattern
 * with the `v` flag, under which `[…_-]` is an invalid class and the check is silently skipped.
 */
export const ID_PATTERN = "[A-Za-z0-9_\\-]{1,64}";

/** h("button", { onclick }, "text"): an element with properties/attributes and text or element children. */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "className") el.className = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) el.append(child instanceof Node ? child : String(child));
  return el;
}

export function say(text, kind = "ok") {
  statusBox.replaceChildren(h("p", { className: kind }, text));
}

export function table(columns, rows, label) {
  return h(
    "table",
    { "aria-label": label },
    h("thead", {}, h("tr", {}, columns.map((c) => h("th", { scope: "col" }, c.title)))),
    h("tbody", {}, rows.length === 0 ? h("tr", {}, h("td", { colspan: columns.length }, "Nothing here")) : rows.map((row) => h("tr", {}, columns.map((c) => h("td", {}, c.cell(row)))))),
  );
}

/** `gold=10, potion=2` (commas or lines) as [["gold", 10], ["potion", 2]]: the grant forms' fields. */
export function keyValuePairs(text) {
  return String(text ?? "")
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter(Boolean)
    .map((pair) => {
      const [key, value] = pair.split("=");
      return [key.trim(), Number(value)];
    });
}

/** Runs an action, reporting its outcome in the live region (a read, `quiet`, reports only a failure). */
export async function attempt(what, action, quiet = false) {
  try {
    const result = await action();
    if (!quiet) say(`${what}: done`);
    return result;
  } catch (err) {
    say(`${what}: ${err.message}${err.code ? ` (${err.code})` : ""}`, "error");
    return undefined;
  }
}

function signInForm(message) {
  nav.replaceChildren();
  who.replaceChildren();
  const form = h(
    "form",
    { id: "signin", onsubmit: async (e) => {
      e.preventDefault();
      const data = new FormData(form);
      try {
        const session = await api("POST", "/session", { name: data.get("name"), password: data.get("password"), ...(data.get("totp") ? { totp: data.get("totp") } : {}) });
        csrfToken = session.csrfToken;
        statusBox.replaceChildren();
        await start(session);
      } catch (err) {
        say(`Sign-in refused: ${err.message}`, "error");
      }
    } },
    h("label", {}, "Operator name", h("input", { name: "name", id: "signin-name", autocomplete: "username", required: true })),
    h("label", {}, "Password", h("input", { name: "password", id: "signin-password", type: "password", autocomplete: "current-password", required: true })),
    h("label", {}, "One-time code (if set up)", h("input", { name: "totp", id: "signin-totp", inputmode: "numeric", autocomplete: "one-time-code", pattern: "[0-9]{6}" })),
    h("button", { type: "submit", id: "signin-submit" }, "Sign in"),
  );
  main.replaceChildren(h("section", { className: "signin" }, h("h2", {}, "Sign in"), message ? h("p", {}, message) : null, form));
  form.querySelector("input").focus();
}

function passwordForm(session) {
  const form = h(
    "form",
    { id: "password-form", onsubmit: async (e) => {
      e.preventDefault();
      const data = new FormData(form);
      if (data.get("newPassword") !== data.get("repeat")) return say("The new passwords differ", "error");
      try {
        const renewed = await api("POST", "/password", { currentPassword: data.get("currentPassword"), newPassword: data.get("newPassword") });
        csrfToken = renewed.csrfToken;
        say("Password changed");
        await start(renewed);
      } catch (err) {
        say(`Password not changed: ${err.message}`, "error");
      }
    } },
    h("label", {}, "Current (one-time) password", h("input", { name: "currentPassword", id: "current-password", type: "password", autocomplete: "current-password", required: true })),
    h("label", {}, "New password (at least 12 characters)", h("input", { name: "newPassword", id: "new-password", type: "password", autocomplete: "new-password", minlength: 12, required: true })),
    h("label", {}, "New password again", h("input", { name: "repeat", id: "repeat-password", type: "password", autocomplete: "new-password", minlength: 12, required: true })),
    h("button", { type: "submit" }, "Change password"),
  );
  main.replaceChildren(h("section", { className: "signin" }, h("h2", {}, `Choose a new password, ${session.operator.name}`), form));
  form.querySelector("input").focus();
}

async function start(session) {
  if (session.operator.mustChangePassword) return passwordForm(session);
  who.replaceChildren(
    h("span", { id: "operator" }, `${session.operator.name} (${session.operator.role})`),
    h("button", { id: "signout", onclick: async () => {
      await attempt("Sign out", () => api("DELETE", "/session"));
      signInForm("Signed out.");
    } }, "Sign out"),
  );
  const screens = await api("GET", "/screens");
  const load = (what, action) => attempt(what, action, true);
  const context = { api, h, say, table, attempt, load, keyValuePairs, idPattern: ID_PATTERN, operator: session.operator, screens };
  const show = async (id) => {
    const screen = screens.find((s) => s.id === id) ?? screens[0];
    for (const b of nav.querySelectorAll("button")) {
      if (b.dataset.screen === screen.id) b.setAttribute("aria-current", "page");
      else b.removeAttribute("aria-current");
    }
    main.replaceChildren(h("p", {}, "Loading…"));
    try {
      const module = await import(`./screens/${screen.id}.js`);
      main.replaceChildren();
      await module.render(main, context);
    } catch (err) {
      main.replaceChildren(h("p", {}, `This screen could not be shown: ${err.message}`));
    }
  };
  nav.replaceChildren(...screens.map((s) => h("button", { type: "button", "data-screen": s.id, onclick: () => { location.hash = `#/${s.id}`; } }, s.title)));
  window.onhashchange = () => show(location.hash.slice(2) || screens[0].id);
  await show(location.hash.slice(2) || screens[0].id);
}

async function boot() {
  try {
    const session = await api("GET", "/session");
    csrfToken = session.csrfToken;
    await start(session);
  } catch (err) {
    if (err.status === 401 || err.status === 403) signInForm(err.code === "console_sign_in_required" ? "" : err.message);
    else main.replaceChildren(h("p", {}, `The console is unavailable: ${err.message}`));
  }
}

boot();
