// Rewards: give soft currencies and items to one player through the economy's one granter, or take
// them back (a debit, e.g. a mistaken grant) through the same ledger; the same id again changes
// nothing more. Only the app's catalog's currencies and items are accepted. Shown where the economy is wired.
export async function render(root, { api, h, attempt, load, keyValuePairs: parsePairs, idPattern }) {
  const result = h("pre", { id: "reward-result" });
  const known = h("p", { id: "reward-catalog" });
  const parts = (d) => ({
    app: d.get("app") || "default",
    currencies: Object.fromEntries(parsePairs(d.get("currencies"))),
    items: parsePairs(d.get("items")).map(([itemId, count]) => ({ itemId, count })),
  });
  const fields = (prefix) => [
    h("label", {}, "Player's user id", h("input", { name: "userId", id: `${prefix}-user`, required: true, size: 38 })),
    h("label", {}, "App", h("input", { name: "app", id: `${prefix}-app`, value: "default", size: 10, onchange: (e) => showCatalog(e.target.value) })),
    h("label", {}, "Currencies (id=amount, e.g. gems=5)", h("input", { name: "currencies", id: `${prefix}-currencies`, size: 24 })),
    h("label", {}, "Items (id=count, e.g. potion=1)", h("input", { name: "items", id: `${prefix}-items`, size: 24 })),
  ];
  const form = h(
    "form",
    { id: "reward-form", onsubmit: async (e) => {
      e.preventDefault();
      const d = new FormData(form);
      const body = { ...parts(d), grantId: d.get("grantId"), reason: d.get("reason") || "operator grant" };
      const granted = await attempt("Reward", () => api("POST", `/rewards/players/${encodeURIComponent(d.get("userId"))}`, body));
      if (granted) result.textContent = JSON.stringify(granted, null, 2);
    } },
    ...fields("reward"),
    h("label", {}, "Grant id (same id = same grant)", h("input", { name: "grantId", id: "reward-grant-id", required: true, pattern: idPattern })),
    h("label", {}, "Reason", h("input", { name: "reason", id: "reward-reason", maxlength: 64 })),
    h("button", { type: "submit", id: "reward-submit" }, "Grant"),
  );
  const debitForm = h(
    "form",
    { id: "debit-form", onsubmit: async (e) => {
      e.preventDefault();
      const d = new FormData(debitForm);
      const body = { ...parts(d), debitId: d.get("debitId"), reason: d.get("reason") };
      const taken = await attempt("Debit", () => api("POST", `/rewards/players/${encodeURIComponent(d.get("userId"))}/debit`, body));
      if (taken) result.textContent = JSON.stringify(taken, null, 2);
    } },
    ...fields("debit"),
    h("label", {}, "Debit id (same id = same debit)", h("input", { name: "debitId", id: "debit-id", required: true, pattern: idPattern })),
    h("label", {}, "Reason", h("input", { name: "reason", id: "debit-reason", required: true, maxlength: 64 })),
    h("button", { type: "submit", className: "danger", id: "debit-submit" }, "Take back"),
  );
  async function showCatalog(app) {
    const found = await load("Catalog", () => api("GET", `/economy/catalog?app=${encodeURIComponent(app || "default")}`));
    if (!found) return;
    const currencies = found.catalog.currencies.map((c) => c.currencyId).join(", ") || "none";
    const items = found.catalog.items.map((i) => i.itemId).join(", ") || "none";
    known.textContent = `The catalog of ${found.app} (version ${found.version}): currencies ${currencies}; items ${items}.`;
  }
  root.append(h("section", {}, h("h2", {}, "Grant rewards"), known, form, h("h2", {}, "Take back (debit)"), debitForm, result));
  await showCatalog("default");
}
