// Economy: a player's wallet and inventory per app, and the catalog in use with its version; an
// admin uploads a new version (JSON), which the server checks and stores as the next version. The
// catalog's history lists every stored version (who, when); any can be viewed, and an admin
// restores one as the next version.
export async function walletSection(ctx, userId, app = "default") {
  const { api, h, table, load } = ctx;
  const box = h("div", { id: "player-wallet" });
  const appInput = h("input", { id: "wallet-app", value: app, size: 10 });
  const show = async () => {
    const w = await load("Wallet", () => api("GET", `/economy/players/${encodeURIComponent(userId)}?app=${encodeURIComponent(appInput.value || "default")}`));
    if (!w) return;
    box.replaceChildren(
      h("p", {}, `Apps with economy records: ${w.apps.length ? w.apps.join(", ") : "none"}`),
      table([{ title: "Currency", cell: (r) => r[0] }, { title: "Balance", cell: (r) => String(r[1]) }], Object.entries(w.balances), "Wallet"),
      table([{ title: "Item", cell: (i) => i.itemId }, { title: "Count", cell: (i) => String(i.count) }], w.items, "Inventory"),
    );
  };
  const section = h(
    "section",
    { "aria-labelledby": "wallet-title" },
    h("h2", { id: "wallet-title" }, "Wallet and inventory"),
    h("form", { onsubmit: (e) => { e.preventDefault(); show(); } }, h("label", {}, "App", appInput), h("button", { type: "submit" }, "Show")),
    box,
  );
  await show();
  return section;
}

export async function render(root, ctx) {
  const { api, h, table, attempt, load, operator } = ctx;
  const walletBox = h("div", {});
  const walletForm = h(
    "form",
    { id: "wallet-form", onsubmit: async (e) => {
      e.preventDefault();
      const d = new FormData(walletForm);
      walletBox.replaceChildren(await walletSection(ctx, d.get("userId"), d.get("app") || "default"));
    } },
    h("label", {}, "Player's user id", h("input", { name: "userId", id: "wallet-user", required: true, size: 38 })),
    h("label", {}, "App", h("input", { name: "app", value: "default", size: 10 })),
    h("button", { type: "submit" }, "Show wallet"),
  );
  const catalogBox = h("pre", { id: "catalog-json" });
  const version = h("span", { id: "catalog-version" });
  const appInput = h("input", { id: "catalog-app", value: "default", size: 10 });
  let shown = 0;
  const loadCatalog = async () => {
    const c = await load("Catalog", () => api("GET", `/economy/catalog?app=${encodeURIComponent(appInput.value || "default")}`));
    if (!c) return;
    shown = c.version;
    version.textContent = `version ${c.version}`;
    catalogBox.textContent = JSON.stringify(c.catalog, null, 2);
    if (editor) editor.value = catalogBox.textContent;
    await loadHistory();
  };
  const historyBox = h("div", { id: "catalog-history" });
  const oldBox = h("pre", { id: "catalog-old" });
  const app = () => appInput.value || "default";
  const loadHistory = async () => {
    const list = await load("Catalog history", () => api("GET", `/economy/catalog/versions?app=${encodeURIComponent(app())}`));
    if (!list) return;
    const view = (v) => async () => {
      const found = await load(`Version ${v}`, () => api("GET", `/economy/catalog/versions/${v}?app=${encodeURIComponent(app())}`));
      if (found) oldBox.textContent = `version ${v}:\n${JSON.stringify(found.catalog, null, 2)}`;
    };
    const restore = (v) => async () => {
      const saved = await attempt(`Restore version ${v}`, () => api("POST", `/economy/catalog/versions/${v}/restore`, { app: app(), expectedVersion: shown }));
      if (saved) await loadCatalog();
    };
    const rows = [...list.versions, { version: 0, by: "the settings' catalog", at: "" }];
    historyBox.replaceChildren(table([
      { title: "Version", cell: (v) => (v.version === list.current ? `${v.version} (in use)` : String(v.version)) },
      { title: "By", cell: (v) => v.by },
      { title: "At", cell: (v) => v.at },
      { title: "", cell: (v) => [
        h("button", { type: "button", "aria-label": `View version ${v.version}`, onclick: view(v.version) }, "View"),
        operator.role === "admin" && v.version !== list.current ? h("button", { type: "button", "aria-label": `Restore version ${v.version}`, onclick: restore(v.version) }, "Restore") : null,
      ] },
    ], rows, "Catalog versions"));
  };
  let editor = null;
  const catalog = h(
    "section",
    { "aria-labelledby": "catalog-title" },
    h("h2", { id: "catalog-title" }, "Catalog ", version),
    h("form", { onsubmit: (e) => { e.preventDefault(); loadCatalog(); } }, h("label", {}, "App", appInput), h("button", { type: "submit" }, "Show catalog")),
    catalogBox,
  );
  if (operator.role === "admin") {
    editor = h("textarea", { id: "catalog-editor", rows: 16, cols: 80, spellcheck: "false" });
    const upload = h(
      "form",
      { id: "catalog-upload", onsubmit: async (e) => {
        e.preventDefault();
        let parsed;
        try {
          parsed = JSON.parse(editor.value);
        } catch (err) {
          return ctx.say(`Catalog: not JSON (${err.message})`, "error");
        }
        const saved = await attempt("Catalog upload", () => api("POST", "/economy/catalog", { app: appInput.value || "default", expectedVersion: shown, catalog: parsed }));
        if (saved) await loadCatalog();
      } },
      h("label", {}, "New version (JSON; checked, then stored as the next version)", editor),
      h("button", { type: "submit" }, "Save as next version"),
    );
    catalog.append(upload);
  }
  const history = h("section", { "aria-labelledby": "history-title" }, h("h2", { id: "history-title" }, "Catalog history"), historyBox, oldBox);
  root.append(h("section", {}, h("h2", {}, "A player's wallet"), walletForm, walletBox), catalog, history);
  await loadCatalog();
}
