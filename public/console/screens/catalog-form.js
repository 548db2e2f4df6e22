// The catalog as a form: currencies, items (prices, grants, limits, sale), ads and gift packs, one
// row per entry, added and removed with buttons. read() builds the catalog JSON the server checks;
// showProblems() puts each problem the server (config:check's checker) reports beside its field,
// found by the path in the problem ("items[2] (sword).prices.gems: …" → the prices field of item 2).
import { addTexts, t } from "../i18n.js";

addTexts({
  en: {
    "cf.currencies": "Currencies", "cf.items": "Items", "cf.ads": "Ads", "cf.giftPacks": "Gift packs", "cf.add": "Add", "cf.remove": "Remove",
    "cf.currencyId": "Currency id", "cf.name": "Name", "cf.itemId": "Item id", "cf.kind": "Kind", "cf.prices": "Prices (coins=30, gems=10)",
    "cf.grantCurrencies": "Grants currencies (gems=60)", "cf.grantItems": "Grants items (potion=3)", "cf.limit": "Purchase limit", "cf.platformPrice": "Platform price",
    "cf.saleFrom": "On sale from (ISO)", "cf.saleUntil": "On sale until (ISO)", "cf.description": "Description", "cf.adUnitId": "Ad unit id", "cf.dailyCap": "Daily cap",
    "cf.giftId": "Gift id", "cf.consumable": "consumable", "cf.durable": "durable", "cf.bundle": "bundle", "cf.other": "Other problems",
  },
  "zh-CN": {
    "cf.currencies": "货币", "cf.items": "商品", "cf.ads": "广告奖励", "cf.giftPacks": "礼包", "cf.add": "添加", "cf.remove": "移除",
    "cf.currencyId": "货币编号", "cf.name": "名称", "cf.itemId": "商品编号", "cf.kind": "类型", "cf.prices": "价格（coins=30, gems=10）",
    "cf.grantCurrencies": "发放货币（gems=60）", "cf.grantItems": "发放物品（potion=3）", "cf.limit": "限购数量", "cf.platformPrice": "平台价格",
    "cf.saleFrom": "上架时间（ISO）", "cf.saleUntil": "下架时间（ISO）", "cf.description": "描述", "cf.adUnitId": "广告位 ID", "cf.dailyCap": "每日上限",
    "cf.giftId": "礼包 ID", "cf.consumable": "消耗品", "cf.durable": "永久物品", "cf.bundle": "组合包", "cf.other": "其他问题",
  },
});

const pairsText = (record) => Object.entries(record ?? {}).map(([k, v]) => `${k}=${v}`).join(", ");
const itemsText = (items) => (items ?? []).map((i) => `${i.itemId}=${i.count}`).join(", ");

/** Each section's fields: [name, label key, kind of input, read from an entry, write into an entry]. */
const grantFields = [
  ["grants.currencies", "cf.grantCurrencies", "text", (e) => pairsText(e.grants?.currencies)],
  ["grants.items", "cf.grantItems", "text", (e) => itemsText(e.grants?.items)],
];
const SECTIONS = {
  currencies: [["currencyId", "cf.currencyId", "text", (e) => e.currencyId], ["name", "cf.name", "text", (e) => e.name]],
  items: [
    ["itemId", "cf.itemId", "text", (e) => e.itemId], ["name", "cf.name", "text", (e) => e.name], ["kind", "cf.kind", "kind", (e) => e.kind ?? "consumable"],
    ["prices", "cf.prices", "text", (e) => pairsText(e.prices)], ...grantFields, ["limit", "cf.limit", "number", (e) => e.limit],
    ["platformPrice", "cf.platformPrice", "number", (e) => e.platformPrice], ["sale.from", "cf.saleFrom", "text", (e) => e.sale?.from], ["sale.until", "cf.saleUntil", "text", (e) => e.sale?.until],
    ["description", "cf.description", "text", (e) => e.description],
  ],
  ads: [["adUnitId", "cf.adUnitId", "text", (e) => e.adUnitId], ...grantFields, ["dailyCap", "cf.dailyCap", "number", (e) => e.dailyCap]],
  giftPacks: [["giftId", "cf.giftId", "text", (e) => e.giftId], ...grantFields],
};

export function catalogForm({ h, keyValuePairs }, catalog) {
  const lists = {};
  const row = (section, entry, index) => {
    const fields = SECTIONS[section].map(([name, label, kind, read]) => {
      const value = read(entry) ?? "";
      const input = kind === "kind"
        ? h("select", { name }, ["consumable", "durable", "bundle"].map((k) => h("option", { value: k, selected: k === value }, t(`cf.${k}`))))
        : h("input", { name, value: String(value), type: kind === "number" ? "number" : "text", size: kind === "number" ? 6 : name.endsWith("Id") ? 12 : 16 });
      return h("label", { "data-field": name }, t(label), input);
    });
    const el = h("fieldset", { className: "catalog-entry", "data-section": section }, ...fields, h("button", { type: "button", className: "remove", onclick: () => el.remove() }, t("cf.remove")));
    return el;
  };
  const root = h("div", { id: "catalog-form-fields" });
  for (const section of Object.keys(SECTIONS)) {
    lists[section] = h("div", { className: "catalog-rows", id: `catalog-${section}` }, (catalog[section] ?? []).map((e, i) => row(section, e, i)));
    root.append(h("h3", {}, t(`cf.${section}`)), lists[section], h("button", { type: "button", id: `catalog-add-${section}`, onclick: () => lists[section].append(row(section, {}, lists[section].children.length)) }, `${t("cf.add")}: ${t(`cf.${section}`)}`));
  }
  const other = h("ul", { id: "catalog-problems", className: "problems" });
  root.append(other);

  /** The catalog the rows describe; an empty field is left out (the checker reports what is required). */
  const read = () => {
    const out = {};
    for (const section of Object.keys(SECTIONS)) {
      out[section] = [...lists[section].children].map((fieldset) => {
        const value = (name) => fieldset.querySelector(`[data-field="${name}"] [name]`).value.trim();
        const entry = {};
        const set = (path, v) => {
          const [head, tail] = path.split(".");
          if (tail) (entry[head] ??= {})[tail] = v;
          else entry[head] = v;
        };
        for (const [name, , kind] of SECTIONS[section]) {
          const raw = value(name);
          if (raw === "") continue;
          if (name === "prices" || name === "grants.currencies") set(name, Object.fromEntries(keyValuePairs(raw)));
          else if (name === "grants.items") set(name, keyValuePairs(raw).map(([itemId, count]) => ({ itemId, count })));
          else set(name, kind === "number" ? Number(raw) : raw);
        }
        return entry;
      });
    }
    return out;
  };

  /** Each problem beside its field (else its entry, else in the list below the form). */
  const showProblems = (problems) => {
    for (const old of root.querySelectorAll(".problem")) old.remove();
    other.replaceChildren();
    for (const problem of problems) {
      const match = /(currencies|items|ads|giftPacks)\[(\d+)\](?: \([^)]*\))?((?:\.[A-Za-z]+)*): (.*)$/.exec(problem);
      const fieldset = match ? lists[match[1]].children[Number(match[2])] : undefined;
      const path = match?.[3].slice(1).split(".").filter(Boolean) ?? [];
      let target;
      for (let n = Math.min(path.length, 2); n > 0 && !target; n--) target = fieldset?.querySelector(`[data-field="${path.slice(0, n).join(".")}"]`) ?? (path[0] === "sale" ? fieldset?.querySelector('[data-field="sale.from"]') : null);
      const note = h("span", { className: "problem", role: "alert" }, match ? match[4] : problem);
      if (target) target.append(note);
      else if (fieldset) fieldset.append(note);
      else other.append(h("li", {}, note));
    }
  };
  return { element: root, read, showProblems };
}
