// Analytics: daily numbers drawn as lines, the retention cohorts shaded by value, CSV of each table.
// Charts are inline SVG drawn here (no library, nothing from another host). Texts in Chinese and
// English through t(); days are the studio's calendar days (YYYY-MM-DD), as the API and CSV name them.
import { addTexts, language, t } from "../i18n.js";
import { experimentSection } from "./analytics-experiments.js";

addTexts({
  en: {
    "analytics.filters": "Filters", "analytics.app": "App (empty: all)", "analytics.platform": "Platform",
    "analytics.range": "Date range", "analytics.from": "From", "analytics.to": "To", "analytics.show": "Show",
    "analytics.daily": "Daily numbers", "analytics.retention": "Retention by first day (cohorts)",
    "analytics.timeZone": "Days run midnight to midnight in {zone}.", "analytics.csv": "Export CSV",
    "analytics.nothing": "No rolled-up days in this range yet.", "analytics.duration": "{m} min {s} s",
    "analytics.chart.dau": "Daily active players (DAU)", "analytics.chart.newPlayers": "New players",
    "analytics.chart.revenue": "Revenue", "analytics.chart.adViews": "Rewarded ad views",
    "analytics.platform.all": "All platforms", "analytics.platform.wechat": "WeChat", "analytics.platform.douyin": "Douyin",
    "analytics.platform.qq": "QQ", "analytics.platform.kuaishou": "Kuaishou", "analytics.platform.account": "Account (username/email)",
    "analytics.col.date": "Day", "analytics.col.dau": "DAU", "analytics.col.wau": "WAU", "analytics.col.mau": "MAU",
    "analytics.col.newPlayers": "New players", "analytics.col.payingPlayers": "Paying players", "analytics.col.revenue": "Revenue",
    "analytics.col.arpdau": "ARPDAU", "analytics.col.arppu": "ARPPU", "analytics.col.payerConversion": "Paying %",
    "analytics.col.adViews": "Ad views", "analytics.col.sessions": "Sessions", "analytics.col.avgSession": "Avg session",
    "analytics.col.softSources": "Currency given", "analytics.col.softSinks": "Currency spent",
    "analytics.col.cohortDate": "First day", "analytics.col.size": "Cohort size", "analytics.col.d1": "D1", "analytics.col.d3": "D3",
    "analytics.col.d7": "D7", "analytics.col.d14": "D14", "analytics.col.d30": "D30",
  },
  "zh-CN": {
    "analytics.filters": "筛选", "analytics.app": "应用（留空为全部）", "analytics.platform": "平台",
    "analytics.range": "日期范围", "analytics.from": "开始日期", "analytics.to": "结束日期", "analytics.show": "查询",
    "analytics.daily": "每日数据", "analytics.retention": "留存队列（按首次登录日）",
    "analytics.timeZone": "每天按 {zone} 时间从 0 点算到 24 点。", "analytics.csv": "导出 CSV",
    "analytics.nothing": "该日期范围内还没有汇总好的数据。", "analytics.duration": "{m} 分 {s} 秒",
    "analytics.chart.dau": "日活跃用户 DAU", "analytics.chart.newPlayers": "新增玩家",
    "analytics.chart.revenue": "收入", "analytics.chart.adViews": "激励广告观看次数",
    "analytics.platform.all": "全部平台", "analytics.platform.wechat": "微信", "analytics.platform.douyin": "抖音",
    "analytics.platform.qq": "QQ", "analytics.platform.kuaishou": "快手", "analytics.platform.account": "账号（用户名/邮箱）",
    "analytics.col.date": "日期", "analytics.col.dau": "日活跃 DAU", "analytics.col.wau": "周活跃 WAU", "analytics.col.mau": "月活跃 MAU",
    "analytics.col.newPlayers": "新增玩家", "analytics.col.payingPlayers": "付费玩家", "analytics.col.revenue": "收入",
    "analytics.col.arpdau": "人均收入 ARPDAU", "analytics.col.arppu": "付费用户人均 ARPPU", "analytics.col.payerConversion": "付费率",
    "analytics.col.adViews": "广告观看", "analytics.col.sessions": "游戏场次", "analytics.col.avgSession": "平均时长",
    "analytics.col.softSources": "货币产出", "analytics.col.softSinks": "货币消耗",
    "analytics.col.cohortDate": "首次登录日", "analytics.col.size": "新增人数", "analytics.col.d1": "次日留存 D1", "analytics.col.d3": "3日留存 D3",
    "analytics.col.d7": "7日留存 D7", "analytics.col.d14": "14日留存 D14", "analytics.col.d30": "30日留存 D30",
  },
});

const PLATFORMS = ["wechat", "douyin", "qq", "kuaishou", "account"];
const RETENTION_DAYS = ["d1", "d3", "d7", "d14", "d30"];
/** A retention day not come yet for that cohort; an average of no sessions. */
const NOT_YET = "—";
/** Counts with the language's grouping (12,345); money stays in its unit, never added across units. */
const count = (n) => new Intl.NumberFormat(language()).format(n);
const percent = (fraction) => new Intl.NumberFormat(language(), { style: "percent", maximumFractionDigits: 1 }).format(fraction);
const duration = (seconds) => t("analytics.duration", { m: Math.floor(seconds / 60), s: String(Math.round(seconds % 60)).padStart(2, "0") });

const SVG = "http://www.w3.org/2000/svg";
const COLORS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c"];

function svg(tag, attributes = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) el.setAttribute(key, String(value));
  for (const child of children.flat()) if (child) el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return el;
}

/** One small line chart: `series` is [{label, values}] over `dates`. */
function lineChart(title, dates, series) {
  const width = 360, height = 160, left = 40, bottom = 24, top = 20;
  const max = Math.max(1, ...series.flatMap((s) => s.values));
  const x = (i) => left + (dates.length <= 1 ? 0 : (i * (width - left - 10)) / (dates.length - 1));
  const y = (v) => top + (height - top - bottom) * (1 - v / max);
  const lines = series.map((s, n) => svg("polyline", { points: s.values.map((v, i) => `${x(i)},${y(v)}`).join(" "), fill: "none", stroke: COLORS[n % COLORS.length], "stroke-width": 2 }));
  const dots = series.flatMap((s, n) => s.values.map((v, i) => svg("circle", { cx: x(i), cy: y(v), r: 2.5, fill: COLORS[n % COLORS.length] }, svg("title", {}, `${dates[i]}: ${count(v)}`))));
  // Beside the title, clear of the dates under the axis.
  const legend = series.length > 1 ? series.map((s, n) => svg("text", { x: left + 70 + n * 110, y: 12, "font-size": 10, fill: COLORS[n % COLORS.length] }, s.label)) : [];
  return svg(
    "svg",
    { viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": title, class: "analytics-chart" },
    svg("text", { x: left, y: 12, "font-size": 12, "font-weight": "bold" }, title),
    svg("line", { x1: left, y1: y(0), x2: width - 10, y2: y(0), stroke: "#999" }),
    svg("text", { x: 2, y: y(max) + 4, "font-size": 10 }, count(max)),
    svg("text", { x: 2, y: y(0) + 4, "font-size": 10 }, "0"),
    dates.length ? svg("text", { x: left, y: height - bottom + 14, "font-size": 10 }, dates[0]) : null,
    dates.length > 1 ? svg("text", { x: width - 70, y: height - bottom + 14, "font-size": 10 }, dates.at(-1)) : null,
    lines, dots, legend,
  );
}

// Unit ids (wechat_coins, douyin_price …) stay as the API and the CSV name them: they are never converted.
const units = (obj) => Object.entries(obj ?? {}).map(([unit, n]) => `${count(n)} ${unit}`).join(", ") || "0";

function csvOf(rows) {
  const flat = rows.map((r) => Object.fromEntries(Object.entries(r).flatMap(([k, v]) => (v && typeof v === "object" ? Object.entries(v).map(([k2, v2]) => [`${k}.${k2}`, v2]) : [[k, v]]))));
  const columns = [...new Set(flat.flatMap((r) => Object.keys(r)))];
  const cell = (v) => (v === null || v === undefined ? "" : /[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v));
  return [columns.join(","), ...flat.map((r) => columns.map((c) => cell(r[c])).join(","))].join("\n") + "\n";
}

function download(h, name, rows) {
  return h("button", { type: "button", onclick: () => {
    const link = h("a", { href: URL.createObjectURL(new Blob([csvOf(rows)], { type: "text/csv" })), download: name });
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  } }, t("analytics.csv"));
}

export async function render(root, context) {
  const { api, h, table, load } = context;
  const day = (offset) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const inputs = {
    app: h("input", { id: "analytics-app", size: 10 }),
    platform: h("select", { id: "analytics-platform" }, ["", ...PLATFORMS].map((p) => h("option", { value: p }, t(`analytics.platform.${p || "all"}`)))),
    from: h("input", { id: "analytics-from", type: "date", value: day(-13) }),
    to: h("input", { id: "analytics-to", type: "date", value: day(0) }),
  };
  const note = h("p", { id: "analytics-zone" });
  const charts = h("div", { id: "analytics-charts", className: "analytics-charts" });
  const daily = h("div", { id: "analytics-daily" });
  const cohorts = h("div", { id: "analytics-retention" });

  const query = () => {
    const q = new URLSearchParams({ from: inputs.from.value, to: inputs.to.value });
    if (inputs.app.value) q.set("app", inputs.app.value);
    if (inputs.platform.value) q.set("platform", inputs.platform.value);
    return q.toString();
  };

  const show = async () => {
    const d = await load(t("analytics.daily"), () => api("GET", `/analytics/daily?${query()}`));
    const r = await load(t("analytics.retention"), () => api("GET", `/analytics/retention?${query()}`));
    if (!d || !r) return;
    note.textContent = t("analytics.timeZone", { zone: d.timeZone });
    const dates = d.days.map((x) => x.date);
    const revenueUnits = [...new Set(d.days.flatMap((x) => Object.keys(x.revenue)))];
    const col = (key) => t(`analytics.col.${key}`);
    charts.replaceChildren(...(d.days.length === 0 ? [h("p", {}, t("analytics.nothing"))] : [
      lineChart(t("analytics.chart.dau"), dates, [{ label: col("dau"), values: d.days.map((x) => x.dau) }]),
      lineChart(t("analytics.chart.newPlayers"), dates, [{ label: col("newPlayers"), values: d.days.map((x) => x.newPlayers) }]),
      lineChart(t("analytics.chart.revenue"), dates, (revenueUnits.length ? revenueUnits : ["—"]).map((unit) => ({ label: unit, values: d.days.map((x) => x.revenue[unit] ?? 0) }))),
      lineChart(t("analytics.chart.adViews"), dates, [{ label: col("adViews"), values: d.days.map((x) => x.adViews) }]),
    ]));
    const number = (key) => ({ title: col(key), cell: (x) => count(x[key]) });
    daily.replaceChildren(
      table([
        { title: col("date"), cell: (x) => x.date }, number("dau"), number("wau"), number("mau"), number("newPlayers"), number("payingPlayers"),
        { title: col("revenue"), cell: (x) => units(x.revenue) }, { title: col("arpdau"), cell: (x) => units(x.arpdau) }, { title: col("arppu"), cell: (x) => units(x.arppu) },
        { title: col("payerConversion"), cell: (x) => percent(x.payerConversion) }, number("adViews"), number("sessions"),
        { title: col("avgSession"), cell: (x) => (x.sessions === 0 ? NOT_YET : duration(x.avgSessionSeconds)) },
        { title: col("softSources"), cell: (x) => units(x.softSources) }, { title: col("softSinks"), cell: (x) => units(x.softSinks) },
      ], d.days, t("analytics.daily")),
      download(h, "analytics-daily.csv", d.days),
    );
    const shaded = (cohort, n) => {
      const value = cohort.retained[n];
      return h("span", { "data-retained": value ?? "" }, value === null ? NOT_YET : `${count(value)} (${percent(cohort.size ? value / cohort.size : 0)})`);
    };
    const retentionTable = table([
      { title: col("cohortDate"), cell: (x) => x.date }, { title: col("size"), cell: (x) => count(x.size) },
      ...RETENTION_DAYS.map((n) => ({ title: col(n), cell: (x) => shaded(x, n) })),
    ], r.cohorts, t("analytics.retention"));
    // Shaded by value through the CSSOM (the console's CSP allows no inline style attributes).
    retentionTable.querySelectorAll("tbody tr").forEach((tr, i) => {
      const cohort = r.cohorts[i];
      if (!cohort) return;
      tr.querySelectorAll("td").forEach((td, j) => {
        if (j < 2) return;
        const value = cohort.retained[RETENTION_DAYS[j - 2]];
        if (value !== null && cohort.size > 0) td.style.backgroundColor = `rgba(37, 99, 235, ${(0.1 + 0.7 * (value / cohort.size)).toFixed(2)})`;
      });
    });
    cohorts.replaceChildren(retentionTable, download(h, "analytics-retention.csv", r.cohorts));
  };

  root.append(
    h("section", {}, h("h2", {}, t("analytics.filters")), h("form", { id: "analytics-filters", onsubmit: (e) => { e.preventDefault(); show(); } },
      h("label", {}, t("analytics.app"), inputs.app), h("label", {}, t("analytics.platform"), inputs.platform),
      h("fieldset", {}, h("legend", {}, t("analytics.range")), h("label", {}, t("analytics.from"), inputs.from), h("label", {}, t("analytics.to"), inputs.to)),
      h("button", { type: "submit" }, t("analytics.show"))), note),
    h("section", {}, h("h2", {}, t("analytics.daily")), charts, daily),
    h("section", {}, h("h2", {}, t("analytics.retention")), cohorts),
    experimentSection(context, () => inputs.app.value, download),
  );
  await show();
}
