// The audit trail: who did what to whom, when, and how it ended; filters (a time range among them)
// and CSV export. The range is typed in the operator's local time and sent as UTC.
export async function render(root, { api, h, table, attempt, load }) {
  const list = h("div", { id: "audit-list" });
  const csv = h("a", { id: "audit-csv", href: "/console/api/audit?format=csv", download: "console-audit.csv" }, "Export CSV");
  const form = h(
    "form",
    { id: "audit-filter", onsubmit: (e) => {
      e.preventDefault();
      refresh();
    } },
    ...["actor", "action", "target"].map((f) => h("label", {}, f[0].toUpperCase() + f.slice(1), h("input", { name: f, id: `audit-${f}`, size: 14 }))),
    h("label", {}, "Outcome", h("select", { name: "outcome", id: "audit-outcome" }, ["", "ok", "refused", "failed", "started", "repeated"].map((o) => h("option", { value: o }, o || "any")))),
    h("label", {}, "From", h("input", { name: "since", id: "audit-since", type: "datetime-local" })),
    h("label", {}, "Until", h("input", { name: "until", id: "audit-until", type: "datetime-local" })),
    h("button", { type: "submit" }, "Search"),
    csv,
  );
  const refresh = async () => {
    const params = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (v) params.set(k, k === "since" || k === "until" ? new Date(v).toISOString() : v);
    csv.setAttribute("href", `/console/api/audit?${params}&format=csv`);
    const entries = await load("Audit", () => api("GET", `/audit?${params}`));
    if (!entries) return;
    list.replaceChildren(
      table(
        [
          { title: "When", cell: (e) => e.at },
          { title: "Who", cell: (e) => `${e.actor} (${e.via})` },
          { title: "What", cell: (e) => e.action },
          { title: "On", cell: (e) => e.target ?? "" },
          { title: "Outcome", cell: (e) => e.outcome },
          { title: "Detail", cell: (e) => JSON.stringify(e.detail) },
        ],
        entries,
        "Audit entries",
      ),
    );
  };
  root.append(h("section", {}, h("h2", {}, "Audit"), form, list));
  await refresh();
}
