// Rewards: give soft currencies and items to one player through the economy's one granter; the
// same grant id again grants nothing more. Shown where the economy is wired.
export async function render(root, { api, h, attempt, keyValuePairs: parsePairs }) {
  const result = h("pre", { id: "reward-result" });
  const form = h(
    "form",
    { id: "reward-form", onsubmit: async (e) => {
      e.preventDefault();
      const d = new FormData(form);
      const body = {
        app: d.get("app") || "default",
        currencies: Object.fromEntries(parsePairs(d.get("currencies"))),
        items: parsePairs(d.get("items")).map(([itemId, count]) => ({ itemId, count })),
        grantId: d.get("grantId"),
        reason: d.get("reason") || "operator grant",
      };
      const granted = await attempt("Reward", () => api("POST", `/rewards/players/${encodeURIComponent(d.get("userId"))}`, body));
      if (granted) result.textContent = JSON.stringify(granted, null, 2);
    } },
    h("label", {}, "Player's user id", h("input", { name: "userId", id: "reward-user", required: true, size: 38 })),
    h("label", {}, "App", h("input", { name: "app", id: "reward-app", value: "default", size: 10 })),
    h("label", {}, "Currencies (gold=100, gems=5)", h("input", { name: "currencies", id: "reward-currencies", size: 24 })),
    h("label", {}, "Items (sword=1)", h("input", { name: "items", id: "reward-items", size: 24 })),
    h("label", {}, "Grant id (same id = same grant)", h("input", { name: "grantId", id: "reward-grant-id", required: true, pattern: "[A-Za-z0-9_-]{1,64}" })),
    h("label", {}, "Reason", h("input", { name: "reason", id: "reward-reason", maxlength: 64 })),
    h("button", { type: "submit" }, "Grant"),
  );
  root.append(h("section", {}, h("h2", {}, "Grant rewards"), form, result));
}
