// Economy: a player's wallet and inventory per app, and the catalog in use with its version; an
// admin uploads a new version (JSON), which the server checks and stores as the next version. The
// catalog's history lists every stored version (who, when); any can be viewed, and an admin
// restores one as the next version. Saving and restoring are confirmed first, naming the app and
// the version that will be in use.
import { addTexts, formatTime, t } from "../i18n.js";
import { catalogForm } from "./catalog-form.js";

addTexts({
  en: {
    "economy.walletLoad": "Wallet", "economy.apps": "Apps with economy records: {apps}", "economy.none": "none", "economy.currency": "Currency",
    "economy.balance": "Balance", "economy.wallet": "Wallet", "economy.item": "Item", "economy.count": "Count", "economy.inventory": "Inventory",
    "economy.walletTitle": "Wallet and inventory", "economy.app": "App", "economy.show": "Show", "economy.user": "Player's user id",
    "economy.showWallet": "Show wallet", "economy.playerWallet": "A player's wallet", "economy.catalogLoad": "Catalog", "economy.version": "version {version}",
    "economy.historyLoad": "Catalog history", "economy.versionLoad": "Version {version}", "economy.versionOf": "version {version}:",
    "economy.restoreOf": "Restore version {version}", "economy.settings": "the settings' catalog", "economy.versionCol": "Version",
    "economy.inUse": "{version} (in use)", "economy.by": "By", "economy.at": "At", "economy.view": "View", "economy.viewOf": "View version {version}",
    "economy.restore": "Restore", "economy.catalog": "Catalog ", "economy.showCatalog": "Show catalog", "economy.notJson": "Catalog: not JSON ({error})",
    "economy.upload": "Catalog upload", "economy.editor": "New version (JSON; checked, then stored as the next version)", "economy.save": "Save as next version",
    "economy.history": "Catalog history", "economy.advanced": "JSON (advanced)", "economy.formSave": "Save the form as next version",
    "economy.confirmSave": "Publish this catalog for app {app} as version {next} (now {current})? Every server process takes it up within a minute: prices, grants and limits change for all players.",
    "economy.confirmRestore": "Restore version {version} of app {app}'s catalog as the new version {next} (now {current})? Every player gets its prices and items.",
  },
  "zh-CN": {
    "economy.walletLoad": "钱包", "economy.apps": "有经济记录的应用：{apps}", "economy.none": "无", "economy.currency": "货币",
    "economy.balance": "余额", "economy.wallet": "钱包", "economy.item": "物品", "economy.count": "数量", "economy.inventory": "背包",
    "economy.walletTitle": "钱包与背包", "economy.app": "应用", "economy.show": "查看", "economy.user": "玩家用户 ID",
    "economy.showWallet": "查看钱包", "economy.playerWallet": "玩家钱包", "economy.catalogLoad": "商品目录", "economy.version": "版本 {version}",
    "economy.historyLoad": "商品目录历史", "economy.versionLoad": "版本 {version}", "economy.versionOf": "版本 {version}：",
    "economy.restoreOf": "恢复版本 {version}", "economy.settings": "配置文件中的目录", "economy.versionCol": "版本",
    "economy.inUse": "{version}（使用中）", "economy.by": "操作人", "economy.at": "时间", "economy.view": "查看", "economy.viewOf": "查看版本 {version}",
    "economy.restore": "恢复", "economy.catalog": "商品目录 ", "economy.showCatalog": "查看商品目录", "economy.notJson": "商品目录：不是有效的 JSON（{error}）",
    "economy.upload": "发布商品目录", "economy.editor": "新版本（JSON；校验通过后保存为下一个版本）", "economy.save": "保存为新版本",
    "economy.history": "商品目录历史", "economy.advanced": "JSON（高级）", "economy.formSave": "将表单保存为新版本",
    "economy.confirmSave": "确定将此商品目录发布为应用 {app} 的版本 {next}（当前 {current}）？所有服务器进程将在一分钟内生效：全体玩家的价格、奖励和限购都会改变。",
    "economy.confirmRestore": "确定将应用 {app} 的商品目录版本 {version} 恢复为新版本 {next}（当前 {current}）？全体玩家将按该版本的价格和物品。",
  },
});
export async function walletSection(ctx, userId, app = "default") {
  const { api, h, table, load } = ctx;
  const box = h("div", { id: "player-wallet" });
  const appInput = h("input", { id: "wallet-app", value: app, size: 10 });
  const show = async () => {
    const w = await load(t("economy.walletLoad"), () => api("GET", `/economy/players/${encodeURIComponent(userId)}?app=${encodeURIComponent(appInput.value || "default")}`));
    if (!w) return;
    box.replaceChildren(
      h("p", {}, t("economy.apps", { apps: w.apps.length ? w.apps.join(", ") : t("economy.none") })),
      table([{ title: t("economy.currency"), cell: (r) => r[0] }, { title: t("economy.balance"), cell: (r) => String(r[1]) }], Object.entries(w.balances), t("economy.wallet")),
      table([{ title: t("economy.item"), cell: (i) => i.itemId }, { title: t("economy.count"), cell: (i) => String(i.count) }], w.items, t("economy.inventory")),
    );
  };
  const section = h(
    "section",
    { "aria-labelledby": "wallet-title" },
    h("h2", { id: "wallet-title" }, t("economy.walletTitle")),
    h("form", { onsubmit: (e) => { e.preventDefault(); show(); } }, h("label", {}, t("economy.app"), appInput), h("button", { type: "submit" }, t("economy.show"))),
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
    h("label", {}, t("economy.user"), h("input", { name: "userId", id: "wallet-user", required: true, size: 38 })),
    h("label", {}, t("economy.app"), h("input", { name: "app", value: "default", size: 10 })),
    h("button", { type: "submit" }, t("economy.showWallet")),
  );
  const catalogBox = h("pre", { id: "catalog-json" });
  const version = h("span", { id: "catalog-version" });
  const appInput = h("input", { id: "catalog-app", value: "default", size: 10 });
  let shown = 0;
  const loadCatalog = async () => {
    const c = await load(t("economy.catalogLoad"), () => api("GET", `/economy/catalog?app=${encodeURIComponent(appInput.value || "default")}`));
    if (!c) return;
    shown = c.version;
    version.textContent = t("economy.version", { version: c.version });
    catalogBox.textContent = JSON.stringify(c.catalog, null, 2);
    if (editor) editor.value = catalogBox.textContent;
    if (formBox) {
      form = catalogForm(ctx, c.catalog);
      formBox.replaceChildren(form.element);
    }
    await loadHistory();
  };
  const historyBox = h("div", { id: "catalog-history" });
  const oldBox = h("pre", { id: "catalog-old" });
  const app = () => appInput.value || "default";
  const loadHistory = async () => {
    const list = await load(t("economy.historyLoad"), () => api("GET", `/economy/catalog/versions?app=${encodeURIComponent(app())}`));
    if (!list) return;
    const view = (v) => async () => {
      const found = await load(t("economy.versionLoad", { version: v }), () => api("GET", `/economy/catalog/versions/${v}?app=${encodeURIComponent(app())}`));
      if (found) oldBox.textContent = `${t("economy.versionOf", { version: v })}\n${JSON.stringify(found.catalog, null, 2)}`;
    };
    const restore = (v) => async (e) => {
      const confirm = t("economy.confirmRestore", { version: v, app: app(), next: list.current + 1, current: list.current });
      const saved = await attempt(t("economy.restoreOf", { version: v }), () => api("POST", `/economy/catalog/versions/${v}/restore`, { app: app(), expectedVersion: shown }), { near: e.currentTarget, confirm });
      if (saved) await loadCatalog();
    };
    const rows = [...list.versions, { version: 0, by: t("economy.settings"), at: "" }];
    historyBox.replaceChildren(table([
      { title: t("economy.versionCol"), cell: (v) => (v.version === list.current ? t("economy.inUse", { version: v.version }) : String(v.version)) },
      { title: t("economy.by"), cell: (v) => v.by },
      { title: t("economy.at"), cell: (v) => formatTime(v.at) },
      { title: "", cell: (v) => [
        h("button", { type: "button", "aria-label": t("economy.viewOf", { version: v.version }), onclick: view(v.version) }, t("economy.view")),
        operator.role === "admin" && v.version !== list.current ? h("button", { type: "button", "aria-label": t("economy.restoreOf", { version: v.version }), onclick: restore(v.version) }, t("economy.restore")) : null,
      ] },
    ], rows, t("economy.history")));
  };
  let editor = null;
  let formBox = null;
  let form = null;
  const catalog = h(
    "section",
    { "aria-labelledby": "catalog-title" },
    h("h2", { id: "catalog-title" }, t("economy.catalog"), version),
    h("form", { onsubmit: (e) => { e.preventDefault(); loadCatalog(); } }, h("label", {}, t("economy.app"), appInput), h("button", { type: "submit" }, t("economy.showCatalog"))),
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
          return ctx.say(t("economy.notJson", { error: err.message }), "error");
        }
        const confirm = t("economy.confirmSave", { app: app(), next: shown + 1, current: shown });
        const saved = await attempt(t("economy.upload"), () => api("POST", "/economy/catalog", { app: app(), expectedVersion: shown, catalog: parsed }), { near: upload, confirm });
        if (saved) await loadCatalog();
      } },
      h("label", {}, t("economy.editor"), editor),
      h("button", { type: "submit", id: "catalog-save" }, t("economy.save")),
    );
    formBox = h("div", {});
    const saveForm = h("form", { id: "catalog-form", onsubmit: async (e) => {
      e.preventDefault();
      const confirm = t("economy.confirmSave", { app: app(), next: shown + 1, current: shown });
      const onError = (err) => form.showProblems(err.code === "catalog_invalid" ? err.data?.problems ?? [] : []);
      const saved = await attempt(t("economy.upload"), () => api("POST", "/economy/catalog", { app: app(), expectedVersion: shown, catalog: form.read() }), { near: saveForm, confirm, onError });
      if (saved) await loadCatalog();
    } }, formBox, h("button", { type: "submit", id: "catalog-form-save" }, t("economy.formSave")));
    catalog.append(saveForm, h("details", { id: "catalog-advanced" }, h("summary", {}, t("economy.advanced")), catalogBox, upload));
  }
  const history = h("section", { "aria-labelledby": "history-title" }, h("h2", { id: "history-title" }, t("economy.history")), historyBox, oldBox);
  root.append(h("section", {}, h("h2", {}, t("economy.playerWallet")), walletForm, walletBox), catalog, history);
  await loadCatalog();
}
