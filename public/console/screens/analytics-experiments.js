// The Analytics screen's experiment comparison: per variant the players LiveOps assigned, payer
// conversion, day-1 and day-7 retention and revenue per player, each with its 95 % interval, and a plain
// warning while there are too few players to tell the variants apart (docs/analytics.md).
import { addTexts, language, t } from "../i18n.js";

addTexts({
  en: {
    "experiment.title": "Experiment results", "experiment.id": "Experiment id", "experiment.show": "Compare variants",
    "experiment.window": "Players of {app} active between {from} and {to}, by the variant LiveOps assigned them.",
    "experiment.notStarted": "The experiment has not started yet: it starts {from}. No player is in it so far.",
    "experiment.notEnough": "Not enough data yet: each variant needs at least {n} players before a difference means anything.",
    "experiment.enough": "Each variant has at least {n} players. A difference counts only where the ranges do not overlap.",
    "experiment.col.variant": "Variant", "experiment.col.players": "Players", "experiment.col.payers": "Paying players",
    "experiment.col.conversion": "Paying % (range)", "experiment.col.d1": "Next-day return (range)", "experiment.col.d7": "Day-7 return (range)",
    "experiment.col.revenuePerPlayer": "Revenue per player (range)", "experiment.notYet": "not yet",
  },
  "zh-CN": {
    "experiment.title": "实验结果", "experiment.id": "实验编号", "experiment.show": "对比各组",
    "experiment.window": "{app} 在 {from} 至 {to} 期间活跃的玩家，按运营配置分配的实验组统计。",
    "experiment.notStarted": "实验尚未开始：将于 {from} 开始，目前还没有玩家参与。",
    "experiment.notEnough": "数据还不够：每组至少需要 {n} 名玩家，差异才有意义。",
    "experiment.enough": "每组都已有至少 {n} 名玩家。只有区间不重叠时，差异才算数。",
    "experiment.col.variant": "实验组", "experiment.col.players": "玩家数", "experiment.col.payers": "付费玩家",
    "experiment.col.conversion": "付费率（区间）", "experiment.col.d1": "次日回访率（区间）", "experiment.col.d7": "第 7 日回访率（区间）",
    "experiment.col.revenuePerPlayer": "人均收入（区间）", "experiment.notYet": "尚无",
  },
});

const percent = (fraction) => new Intl.NumberFormat(language(), { style: "percent", maximumFractionDigits: 1 }).format(fraction);
const number = (n) => new Intl.NumberFormat(language(), { maximumFractionDigits: 2 }).format(n);
const local = (iso) => new Date(iso).toLocaleString(language());

/** The section; `appOf()` reads the screen's app filter (empty: the first app that has the experiment). */
export function experimentSection({ api, h, table, load }, appOf, download) {
  const input = h("input", { id: "experiment-id", size: 20, required: true, pattern: "[A-Za-z0-9_.\\-]{1,64}" });
  const result = h("div", { id: "analytics-experiment" });
  const show = async () => {
    const q = appOf() ? `?app=${encodeURIComponent(appOf())}` : "";
    const r = await load(t("experiment.title"), () => api("GET", `/analytics/experiments/${encodeURIComponent(input.value)}${q}`));
    if (!r) return result.replaceChildren();
    const range = (i, format) => `${format(i.low)} – ${format(i.high)}`;
    const col = (key) => t(`experiment.col.${key}`);
    result.replaceChildren(
      // An experiment that starts later reads from its start to now: said plainly, not as a backwards window.
      h("p", { id: "experiment-window" }, Date.parse(r.from) > Date.parse(r.to) ? t("experiment.notStarted", { from: local(r.from) }) : t("experiment.window", { app: r.app, from: local(r.from), to: local(r.to) })),
      h("p", { id: "experiment-verdict", "data-enough": String(r.enoughData) }, t(r.enoughData ? "experiment.enough" : "experiment.notEnough", { n: r.minPlayersPerVariant })),
      table([
        { title: col("variant"), cell: (v) => v.variant },
        { title: col("players"), cell: (v) => number(v.players) },
        { title: col("payers"), cell: (v) => number(v.payers) },
        { title: col("conversion"), cell: (v) => `${percent(v.conversion)} (${range(v.interval, percent)})` },
        ...["d1", "d7"].map((day) => ({ title: col(day), cell: (v) => (v.retention[day] ? `${percent(v.retention[day].rate)} (${range(v.retention[day].interval, percent)})` : t("experiment.notYet")) })),
        { title: col("revenuePerPlayer"), cell: (v) => Object.entries(v.revenuePerPlayer).map(([unit, x]) => `${number(x.mean)} ${unit} (${range(x.interval, number)})`).join(", ") || "0" },
      ], r.variants, t("experiment.title")),
      download(h, `experiment-${r.experimentId}.csv`, r.variants.map((v) => ({ variant: v.variant, players: v.players, payers: v.payers, conversion: v.conversion, conversionLow: v.interval.low, conversionHigh: v.interval.high, d1: v.retention.d1?.rate ?? null, d1Players: v.retention.d1?.players ?? null, d7: v.retention.d7?.rate ?? null, d7Players: v.retention.d7?.players ?? null, revenue: v.revenue }))),
    );
  };
  return h("section", {}, h("h2", {}, t("experiment.title")),
    h("form", { id: "experiment-form", onsubmit: (e) => { e.preventDefault(); show(); } },
      h("label", {}, t("experiment.id"), input), h("button", { type: "submit" }, t("experiment.show"))),
    result);
}
