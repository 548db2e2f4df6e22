// Rewards: give soft currencies and items to one player through the economy's one granter, or take
// them back (a debit, e.g. a mistaken grant, confirmed first) through the same ledger; the same id
// again changes nothing more. Only the app's catalog's currencies and items are accepted. Shown
// where the economy is wired.
import { addTexts, describeGoods, t } from "../i18n.js";

addTexts({
  en: {
    "rewards.grantTitle": "Grant rewards", "rewards.debitTitle": "Take back (debit)", "rewards.user": "Player's user id", "rewards.app": "App",
    "rewards.currencies": "Currencies (id=amount, e.g. gems=5)", "rewards.items": "Items (id=count, e.g. potion=1)",
    "rewards.grantId": "Grant id (same id = same grant)", "rewards.debitId": "Debit id (same id = same debit)", "rewards.reason": "Reason",
    "rewards.grant": "Grant", "rewards.takeBack": "Take back", "rewards.what": "Grant", "rewards.debitWhat": "Debit", "rewards.catalogLoad": "Catalog",
    "rewards.catalog": "The catalog of {app} (version {version}): currencies {currencies}; items {items}.", "rewards.none": "none",
    "rewards.granted": "Granted {goods} to {user}. Balances now: {balances}.", "rewards.grantRepeated": "Grant id {id} was used before: nothing more was given. Balances: {balances}.",
    "rewards.debited": "Took {goods} back from {user}. Balances now: {balances}.", "rewards.debitRepeated": "Debit id {id} was used before: nothing more was taken. Balances: {balances}.",
    "rewards.confirmDebit": "Take {goods} back from player {user} (app {app})?\nReason: {reason}",
  },
  "zh-CN": {
    "rewards.grantTitle": "发放奖励", "rewards.debitTitle": "扣除（收回）", "rewards.user": "玩家用户 ID", "rewards.app": "应用",
    "rewards.currencies": "货币（编号=数量，如 gems=5）", "rewards.items": "物品（编号=数量，如 potion=1）",
    "rewards.grantId": "发放编号（相同编号视为同一次发放）", "rewards.debitId": "扣除编号（相同编号视为同一次扣除）", "rewards.reason": "原因",
    "rewards.grant": "发放", "rewards.takeBack": "扣除", "rewards.what": "发放", "rewards.debitWhat": "扣除", "rewards.catalogLoad": "商品目录",
    "rewards.catalog": "{app} 的商品目录（版本 {version}）：货币 {currencies}；物品 {items}。", "rewards.none": "无",
    "rewards.granted": "已向 {user} 发放 {goods}。当前余额：{balances}。", "rewards.grantRepeated": "发放编号 {id} 已使用过，未重复发放。余额：{balances}。",
    "rewards.debited": "已从 {user} 扣除 {goods}。当前余额：{balances}。", "rewards.debitRepeated": "扣除编号 {id} 已使用过，未重复扣除。余额：{balances}。",
    "rewards.confirmDebit": "确定从玩家 {user}（应用 {app}）扣除 {goods}？\n原因：{reason}",
  },
});

export async function render(root, { api, h, attempt, load, keyValuePairs: parsePairs, idPattern }) {
  const known = h("p", { id: "reward-catalog" });
  const parts = (d) => ({
    app: d.get("app") || "default",
    currencies: Object.fromEntries(parsePairs(d.get("currencies"))),
    items: parsePairs(d.get("items")).map(([itemId, count]) => ({ itemId, count })),
  });
  const balancesOf = (r) => describeGoods({ currencies: r.balances ?? {} });
  const fields = (prefix) => [
    h("label", {}, t("rewards.user"), h("input", { name: "userId", id: `${prefix}-user`, required: true, size: 38 })),
    h("label", {}, t("rewards.app"), h("input", { name: "app", id: `${prefix}-app`, value: "default", size: 10, onchange: (e) => showCatalog(e.target.value) })),
    h("label", {}, t("rewards.currencies"), h("input", { name: "currencies", id: `${prefix}-currencies`, size: 24 })),
    h("label", {}, t("rewards.items"), h("input", { name: "items", id: `${prefix}-items`, size: 24 })),
  ];
  const grantResult = h("p", { id: "reward-result", className: "result" });
  const form = h(
    "form",
    { id: "reward-form", onsubmit: async (e) => {
      e.preventDefault();
      const d = new FormData(form);
      const body = { ...parts(d), grantId: d.get("grantId"), reason: d.get("reason") || "operator grant" };
      const granted = await attempt(t("rewards.what"), () => api("POST", `/rewards/players/${encodeURIComponent(d.get("userId"))}`, body), { near: form });
      if (granted) grantResult.textContent = granted.granted === false ? t("rewards.grantRepeated", { id: body.grantId, balances: balancesOf(granted) }) : t("rewards.granted", { goods: describeGoods(body), user: d.get("userId"), balances: balancesOf(granted) });
    } },
    ...fields("reward"),
    h("label", {}, t("rewards.grantId"), h("input", { name: "grantId", id: "reward-grant-id", required: true, pattern: idPattern })),
    h("label", {}, t("rewards.reason"), h("input", { name: "reason", id: "reward-reason", maxlength: 64 })),
    h("button", { type: "submit", id: "reward-submit" }, t("rewards.grant")),
  );
  const debitResult = h("p", { id: "debit-result", className: "result" });
  const debitForm = h(
    "form",
    { id: "debit-form", onsubmit: async (e) => {
      e.preventDefault();
      const d = new FormData(debitForm);
      const body = { ...parts(d), debitId: d.get("debitId"), reason: d.get("reason") };
      const confirm = t("rewards.confirmDebit", { goods: describeGoods(body), user: d.get("userId"), app: body.app, reason: body.reason });
      const taken = await attempt(t("rewards.debitWhat"), () => api("POST", `/rewards/players/${encodeURIComponent(d.get("userId"))}/debit`, body), { near: debitForm, confirm });
      if (taken) debitResult.textContent = taken.debited === false ? t("rewards.debitRepeated", { id: body.debitId, balances: balancesOf(taken) }) : t("rewards.debited", { goods: describeGoods(body), user: d.get("userId"), balances: balancesOf(taken) });
    } },
    ...fields("debit"),
    h("label", {}, t("rewards.debitId"), h("input", { name: "debitId", id: "debit-id", required: true, pattern: idPattern })),
    h("label", {}, t("rewards.reason"), h("input", { name: "reason", id: "debit-reason", required: true, maxlength: 64 })),
    h("button", { type: "submit", className: "danger", id: "debit-submit" }, t("rewards.takeBack")),
  );
  async function showCatalog(app) {
    const found = await load(t("rewards.catalogLoad"), () => api("GET", `/economy/catalog?app=${encodeURIComponent(app || "default")}`));
    if (!found) return;
    const currencies = found.catalog.currencies.map((c) => c.currencyId).join(", ") || t("rewards.none");
    const items = found.catalog.items.map((i) => i.itemId).join(", ") || t("rewards.none");
    known.textContent = t("rewards.catalog", { app: found.app, version: found.version, currencies, items });
  }
  root.append(h("section", {}, h("h2", {}, t("rewards.grantTitle")), known, form, grantResult), h("section", {}, h("h2", {}, t("rewards.debitTitle")), debitForm, debitResult));
  await showCatalog("default");
}
