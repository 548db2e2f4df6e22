// The console shell: sign-in, password change, navigation, and a small API client. Each screen is a
// module in ./screens/<id>.js exporting render(container, ctx); the server lists the screens an
// operator's role may see. Nothing is loaded from another host; text is set, never parsed as HTML.
// Texts come from i18n.js (t, per-screen dictionaries), times from formatTime (the browser's zone);
// a change with an effect worth a second look goes through confirmAction first, and its result is
// shown beside the form or button that asked for it (gone with the screen).
import { LANGUAGES, errorText, formatTime, language, setLanguage, t, zoneName, zoneOf, addTexts } from "./i18n.js";
import "./texts/shell.js";
import "./texts/errors.js";

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
    this.data = envelope?.data;
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
    if (res.status === 401 && envelope?.data?.code === "console_sign_in_required" && path !== "/session") setTimeout(() => signInForm(t("shell.sessionEnded")), 0);
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

/**
 * The result line beside what asked for it: after the form, or after the list holding the table
 * (rows are redrawn, the line stays), or after the button. It lives in the screen, so it goes with it.
 */
const resultAnchor = (near) => near.closest("table")?.parentElement ?? near.closest("form") ?? near;

function sayAfter(anchor, text, kind) {
  let slot = anchor.nextElementSibling;
  if (!slot?.classList.contains("result")) {
    slot = h("p", { className: "result", role: "status", "aria-live": "polite" });
    anchor.after(slot);
  }
  slot.className = `result ${kind}`;
  slot.textContent = text;
}

/** A modal naming the effect (who, what, how much); resolves true only on Confirm. Cancel is the default. */
export function confirmAction(message) {
  return new Promise((resolve) => {
    const dialog = h("dialog", { id: "confirm-dialog", "aria-labelledby": "confirm-title", "aria-describedby": "confirm-text" });
    const finish = (ok) => {
      dialog.close();
      dialog.remove();
      resolve(ok);
    };
    const cancel = h("button", { type: "button", id: "confirm-cancel", onclick: () => finish(false) }, t("shell.cancel"));
    dialog.append(
      h("h2", { id: "confirm-title" }, t("shell.confirmTitle")),
      h("p", { id: "confirm-text" }, message),
      h("div", { className: "confirm-buttons" }, cancel, h("button", { type: "button", className: "danger", id: "confirm-ok", onclick: () => finish(true) }, t("shell.confirm"))),
    );
    dialog.addEventListener("cancel", (e) => {
      e.preventDefault();
      finish(false);
    });
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus();
  });
}

export function table(columns, rows, label) {
  return h(
    "table",
    { "aria-label": label },
    h("thead", {}, h("tr", {}, columns.map((c) => h("th", { scope: "col" }, c.title)))),
    h("tbody", {}, rows.length === 0 ? h("tr", {}, h("td", { colspan: columns.length }, t("shell.nothing"))) : rows.map((row) => h("tr", {}, columns.map((c) => h("td", {}, c.cell(row)))))),
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

/**
 * Runs an action and reports its outcome. `options`: true (a read: report only a failure), or
 * { near: the form or button that asked (the result is shown beside it, else in the page's live
 * region), confirm: the effect in words (asked first; Cancel runs nothing), quiet, onError(err),
 * redraw(result): shows what the action changed, awaited before "done" is said }.
 */
export async function attempt(what, action, options = {}) {
  const { near, confirm, quiet, onError, redraw: redrawAfter } = options === true ? { quiet: true } : options;
  // Placed before the action: the redraw it causes may take the asking button off the page.
  const anchor = near?.isConnected ? resultAnchor(near) : undefined;
  const report = (text, kind) => (anchor?.isConnected ? sayAfter(anchor, text, kind) : say(text, kind));
  if (confirm && !(await confirmAction(confirm))) {
    report(t("shell.cancelled", { what }), "ok");
    return undefined;
  }
  let result;
  try {
    result = await action();
  } catch (err) {
    report(t("shell.failed", { what, error: errorText(err) }), "error");
    onError?.(err);
    return undefined;
  }
  // Redrawn before "done": what the operator types once told is never overwritten by a late redraw.
  // A redraw reports its own failure (a read through `load`); the action is done either way.
  if (redrawAfter) await Promise.resolve().then(() => redrawAfter(result)).catch(() => undefined);
  if (!quiet) report(t("shell.done", { what }), "ok");
  return result;
}

/** Redraws whatever is shown (sign-in, password form, a screen) in the newly chosen language. */
let redraw = () => undefined;

function shellTexts() {
  document.documentElement.lang = language();
  document.title = t("shell.title");
  document.querySelector("header h1").textContent = t("shell.title");
  document.querySelector(".skip").textContent = t("shell.skip");
  nav.setAttribute("aria-label", t("shell.screens"));
  const picker = h("select", { id: "language", "aria-label": t("shell.language"), onchange: (e) => {
    setLanguage(e.target.value);
    shellTexts();
    redraw();
  } }, LANGUAGES.map((l) => h("option", { value: l.id, selected: l.id === language() }, l.name)));
  const zone = h("span", { id: "zone" }, t("shell.zone", { zone: `${zoneName()} (${zoneOf(new Date())})` }));
  document.getElementById("locale").replaceChildren(zone, picker);
}

function signInForm(message) {
  redraw = () => signInForm(message);
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
        say(t("shell.signInRefused", { error: errorText(err) }), "error");
      }
    } },
    h("label", {}, t("shell.name"), h("input", { name: "name", id: "signin-name", autocomplete: "username", required: true })),
    h("label", {}, t("shell.password"), h("input", { name: "password", id: "signin-password", type: "password", autocomplete: "current-password", required: true })),
    h("label", {}, t("shell.totp"), h("input", { name: "totp", id: "signin-totp", inputmode: "numeric", autocomplete: "one-time-code", pattern: "[0-9]{6}" })),
    h("button", { type: "submit", id: "signin-submit" }, t("shell.signIn")),
  );
  main.replaceChildren(h("section", { className: "signin" }, h("h2", {}, t("shell.signIn")), message ? h("p", {}, message) : null, form));
  form.querySelector("input").focus();
}

function passwordForm(session) {
  redraw = () => passwordForm(session);
  const form = h(
    "form",
    { id: "password-form", onsubmit: async (e) => {
      e.preventDefault();
      const data = new FormData(form);
      if (data.get("newPassword") !== data.get("repeat")) return say(t("shell.passwordsDiffer"), "error");
      try {
        const renewed = await api("POST", "/password", { currentPassword: data.get("currentPassword"), newPassword: data.get("newPassword") });
        csrfToken = renewed.csrfToken;
        say(t("shell.passwordChanged"));
        await start(renewed);
      } catch (err) {
        say(t("shell.passwordRefused", { error: errorText(err) }), "error");
      }
    } },
    h("label", {}, t("shell.currentPassword"), h("input", { name: "currentPassword", id: "current-password", type: "password", autocomplete: "current-password", required: true })),
    h("label", {}, t("shell.newPassword"), h("input", { name: "newPassword", id: "new-password", type: "password", autocomplete: "new-password", minlength: 12, required: true })),
    h("label", {}, t("shell.repeatPassword"), h("input", { name: "repeat", id: "repeat-password", type: "password", autocomplete: "new-password", minlength: 12, required: true })),
    h("button", { type: "submit" }, t("shell.changePassword")),
  );
  main.replaceChildren(h("section", { className: "signin" }, h("h2", {}, t("shell.choosePassword", { name: session.operator.name })), form));
  form.querySelector("input").focus();
}

async function start(session) {
  if (session.operator.mustChangePassword) return passwordForm(session);
  who.replaceChildren(
    h("span", { id: "operator" }, t("shell.operator", { name: session.operator.name, role: t(`role.${session.operator.role}`) })),
    h("button", { id: "signout", onclick: async () => {
      await attempt(t("shell.signOut"), () => api("DELETE", "/session"));
      signInForm(t("shell.signedOut"));
    } }, t("shell.signOut")),
  );
  const screens = await api("GET", "/screens");
  const load = (what, action) => attempt(what, action, true);
  const context = { api, h, say, table, attempt, load, keyValuePairs, idPattern: ID_PATTERN, operator: session.operator, screens, t, addTexts, formatTime, confirmAction, language };
  const title = (s) => (t(`screen.${s.id}`) === `screen.${s.id}` ? s.title : t(`screen.${s.id}`));
  // `#/<screen>` or `#/<screen>/<what>` (a player's page: #/players/<user id>): the rest is the screen's `params`.
  const show = async (address) => {
    statusBox.replaceChildren();
    const [id, ...rest] = address.split("/");
    const screen = screens.find((s) => s.id === id) ?? screens[0];
    context.params = screen.id === id && rest.length ? rest.join("/") : undefined;
    for (const b of nav.querySelectorAll("button")) {
      if (b.dataset.screen === screen.id) b.setAttribute("aria-current", "page");
      else b.removeAttribute("aria-current");
    }
    main.replaceChildren(h("p", {}, t("shell.loading")));
    try {
      const module = await import(`./screens/${screen.id}.js`);
      main.replaceChildren();
      await module.render(main, context);
    } catch (err) {
      main.replaceChildren(h("p", {}, t("shell.screenFailed", { error: errorText(err) })));
    }
  };
  nav.replaceChildren(...screens.map((s) => h("button", { type: "button", "data-screen": s.id, onclick: () => { location.hash = `#/${s.id}`; } }, title(s))));
  window.onhashchange = () => show(location.hash.slice(2) || screens[0].id);
  redraw = () => start(session);
  await show(location.hash.slice(2) || screens[0].id);
}

async function boot() {
  shellTexts();
  try {
    const session = await api("GET", "/session");
    csrfToken = session.csrfToken;
    await start(session);
  } catch (err) {
    if (err.status === 401 || err.status === 403) signInForm(err.code === "console_sign_in_required" ? "" : errorText(err));
    else main.replaceChildren(h("p", {}, t("shell.unavailable", { error: errorText(err) })));
  }
}

boot();
