// The audit trail: who did what to whom, when, and how it ended; filters (a time range among them)
// and CSV export. The range is typed in the operator's local time and sent as UTC; times are shown
// in the operator's zone. Actions stay their ids (what one searches for), outcomes are translated.
import { addTexts, formatTime, t } from "../i18n.js";

addTexts({
  en: {
    "audit.title": "Audit", "audit.csv": "Export CSV", "audit.actor": "Actor", "audit.action": "Action", "audit.target": "Target",
    "audit.outcome": "Outcome", "audit.any": "any", "audit.since": "From", "audit.until": "Until", "audit.search": "Search",
    "audit.when": "When", "audit.who": "Who", "audit.what": "What", "audit.on": "On", "audit.detail": "Detail", "audit.entries": "Audit entries",
    "outcome.ok": "ok", "outcome.refused": "refused", "outcome.failed": "failed", "outcome.started": "started", "outcome.repeated": "repeated",
  },
  "zh-CN": {
    "audit.title": "审计日志", "audit.csv": "导出 CSV", "audit.actor": "操作人", "audit.action": "操作", "audit.target": "对象",
    "audit.outcome": "结果", "audit.any": "全部", "audit.since": "开始时间", "audit.until": "结束时间", "audit.search": "查询",
    "audit.when": "时间", "audit.who": "操作人", "audit.what": "操作", "audit.on": "对象", "audit.detail": "详情", "audit.entries": "审计记录",
    "outcome.ok": "成功", "outcome.refused": "已拒绝", "outcome.failed": "失败", "outcome.started": "已开始", "outcome.repeated": "重复",
  },
});

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** The detail as "key: value; …", its timestamps in the operator's zone (the CSV keeps them as stored). */
function describeDetail(detail) {
  const show = (v) => (typeof v === "string" && ISO_TIME.test(v) ? formatTime(v) : typeof v === "string" ? v : JSON.stringify(v));
  return Object.entries(detail ?? {}).map(([k, v]) => `${k}: ${show(v)}`).join("; ");
}

export async function render(root, { api, h, table, load }) {
  const list = h("div", { id: "audit-list" });
  const csv = h("a", { id: "audit-csv", href: "/console/api/audit?format=csv", download: "console-audit.csv" }, t("audit.csv"));
  const form = h(
    "form",
    { id: "audit-filter", onsubmit: (e) => {
      e.preventDefault();
      refresh();
    } },
    ...["actor", "action", "target"].map((f) => h("label", {}, t(`audit.${f}`), h("input", { name: f, id: `audit-${f}`, size: 14 }))),
    h("label", {}, t("audit.outcome"), h("select", { name: "outcome", id: "audit-outcome" }, ["", "ok", "refused", "failed", "started", "repeated"].map((o) => h("option", { value: o }, o ? t(`outcome.${o}`) : t("audit.any"))))),
    h("label", {}, t("audit.since"), h("input", { name: "since", id: "audit-since", type: "datetime-local" })),
    h("label", {}, t("audit.until"), h("input", { name: "until", id: "audit-until", type: "datetime-local" })),
    h("button", { type: "submit", id: "audit-search" }, t("audit.search")),
    csv,
  );
  const refresh = async () => {
    const params = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (v) params.set(k, k === "since" || k === "until" ? new Date(v).toISOString() : v);
    csv.setAttribute("href", `/console/api/audit?${params}&format=csv`);
    const entries = await load(t("audit.title"), () => api("GET", `/audit?${params}`));
    if (!entries) return;
    list.replaceChildren(
      table(
        [
          { title: t("audit.when"), cell: (e) => h("time", { datetime: e.at }, formatTime(e.at)) },
          { title: t("audit.who"), cell: (e) => `${e.actor} (${e.via})` },
          { title: t("audit.what"), cell: (e) => e.action },
          { title: t("audit.on"), cell: (e) => e.target ?? "" },
          { title: t("audit.outcome"), cell: (e) => t(`outcome.${e.outcome}`) },
          { title: t("audit.detail"), cell: (e) => describeDetail(e.detail) },
        ],
        entries,
        t("audit.entries"),
      ),
    );
  };
  root.append(h("section", {}, h("h2", {}, t("audit.title")), form, list));
  await refresh();
}
