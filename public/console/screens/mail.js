// Mail: send currencies and items to one player or to every player of an app, with an expiry. Each
// player claims a mail once; the same mail id again is the same mail.
export async function render(root, { api, h, attempt, keyValuePairs: pairs, idPattern }) {
  const result = h("pre", { id: "mail-result" });
  const form = h(
    "form",
    { id: "mail-form", onsubmit: async (e) => {
      e.preventDefault();
      const d = new FormData(form);
      const body = {
        app: d.get("app") || "default",
        userId: d.get("everyone") ? null : d.get("userId") || null,
        title: d.get("title"),
        body: d.get("body") || "",
        currencies: Object.fromEntries(pairs(d.get("currencies"))),
        items: pairs(d.get("items")).map(([itemId, count]) => ({ itemId, count })),
        ...(d.get("expiresAt") ? { expiresAt: new Date(d.get("expiresAt")).toISOString() } : {}),
        ...(d.get("mailId") ? { mailId: d.get("mailId") } : {}),
      };
      if (body.userId === null && !d.get("everyone")) return result.replaceChildren("Name a player or tick “every player of the app”.");
      const sent = await attempt("Mail", () => api("POST", "/mail", body));
      if (sent) result.textContent = JSON.stringify(sent, null, 2);
    } },
    h("label", {}, "Player's user id", h("input", { name: "userId", id: "mail-user", size: 38 })),
    h("label", {}, h("input", { type: "checkbox", name: "everyone", id: "mail-everyone" }), " every player of the app"),
    h("label", {}, "App", h("input", { name: "app", id: "mail-app", value: "default", size: 10 })),
    h("label", {}, "Title", h("input", { name: "title", id: "mail-title", required: true, maxlength: 100 })),
    h("label", {}, "Text", h("textarea", { name: "body", id: "mail-body", rows: 3, maxlength: 2000 })),
    h("label", {}, "Currencies (id=amount, e.g. gems=5: the app's catalog's ids only)", h("input", { name: "currencies", id: "mail-currencies", size: 24 })),
    h("label", {}, "Items (id=count, e.g. potion=1)", h("input", { name: "items", id: "mail-items", size: 24 })),
    h("label", {}, "Expires (empty: the default)", h("input", { name: "expiresAt", id: "mail-expires", type: "datetime-local" })),
    h("label", {}, "Mail id (optional; same id = same mail)", h("input", { name: "mailId", id: "mail-id", pattern: idPattern })),
    h("button", { type: "submit", id: "mail-submit" }, "Send mail"),
  );
  root.append(h("section", {}, h("h2", {}, "Send mail"), form, result));
}
