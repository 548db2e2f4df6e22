// Analytics: daily numbers drawn as lines, the retention cohorts shaded by value, CSV of each table.
// Charts are inline SVG drawn here (no library, nothing from another host). Every text shown is in
// TEXT, so the console's translations can replace it in one place.
const TEXT = {
  filters: "Filters",
  app: "App (empty: all)",
  platform: "Platform (empty: all)",
  from: "From",
  to: "To",
  show: "Show",
  daily: "Daily",
  retention: "Retention by first day",
  timeZone: (zone) => `Days run midnight to midnight in ${zone}.`,
  csv: "Download CSV",
  nothing: "No rolled-up days in this range yet.",
  charts: { dau: "Daily active players", newPlayers: "New players", revenue: "Revenue", adViews: "Rewarded ad views" },
  columns: {
    date: "Day", dau: "DAU", wau: "WAU", mau: "MAU", newPlayers: "New", payingPlayers: "Paying", revenue: "Revenue", arpdau: "ARPDAU",
    arppu: "ARPPU", payerConversion: "Payer %", adViews: "Ad views", sessions: "Sessions", avgSessionSeconds: "Avg session (s)",
    size: "Cohort", d1: "D1", d3: "D3", d7: "D7", d14: "D14", d30: "D30",
  },
  notYet: "—",
};

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
  const dots = series.flatMap((s, n) => s.values.map((v, i) => svg("circle", { cx: x(i), cy: y(v), r: 2.5, fill: COLORS[n % COLORS.length] }, svg("title", {}, `${dates[i]}: ${v}`))));
  const legend = series.length > 1 ? series.map((s, n) => svg("text", { x: left + n * 110, y: height - 4, "font-size": 10, fill: COLORS[n % COLORS.length] }, s.label)) : [];
  return svg(
    "svg",
    { viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": title, class: "analytics-chart" },
    svg("text", { x: left, y: 12, "font-size": 12, "font-weight": "bold" }, title),
    svg("line", { x1: left, y1: y(0), x2: width - 10, y2: y(0), stroke: "#999" }),
    svg("text", { x: 2, y: y(max) + 4, "font-size": 10 }, String(max)),
    svg("text", { x: 2, y: y(0) + 4, "font-size": 10 }, "0"),
    dates.length ? svg("text", { x: left, y: height - bottom + 14, "font-size": 10 }, dates[0]) : null,
    dates.length > 1 ? svg("text", { x: width - 70, y: height - bottom + 14, "font-size": 10 }, dates.at(-1)) : null,
    lines, dots, legend,
  );
}

const units = (obj) => Object.entries(obj ?? {}).map(([unit, n]) => `${n} ${unit}`).join(", ") || "0";

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
  } }, TEXT.csv);
}

export async function render(root, { api, h, table, load }) {
  const day = (offset) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const inputs = {
    app: h("input", { id: "analytics-app", size: 10 }),
    platform: h("input", { id: "analytics-platform", size: 10 }),
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
    const d = await load(TEXT.daily, () => api("GET", `/analytics/daily?${query()}`));
    const r = await load(TEXT.retention, () => api("GET", `/analytics/retention?${query()}`));
    if (!d || !r) return;
    note.textContent = TEXT.timeZone(d.timeZone);
    const dates = d.days.map((x) => x.date);
    const revenueUnits = [...new Set(d.days.flatMap((x) => Object.keys(x.revenue)))];
    charts.replaceChildren(...(d.days.length === 0 ? [h("p", {}, TEXT.nothing)] : [
      lineChart(TEXT.charts.dau, dates, [{ label: TEXT.columns.dau, values: d.days.map((x) => x.dau) }]),
      lineChart(TEXT.charts.newPlayers, dates, [{ label: TEXT.columns.newPlayers, values: d.days.map((x) => x.newPlayers) }]),
      lineChart(TEXT.charts.revenue, dates, (revenueUnits.length ? revenueUnits : ["—"]).map((unit) => ({ label: unit, values: d.days.map((x) => x.revenue[unit] ?? 0) }))),
      lineChart(TEXT.charts.adViews, dates, [{ label: TEXT.columns.adViews, values: d.days.map((x) => x.adViews) }]),
    ]));
    const c = TEXT.columns;
    daily.replaceChildren(
      table([
        { title: c.date, cell: (x) => x.date }, { title: c.dau, cell: (x) => String(x.dau) }, { title: c.wau, cell: (x) => String(x.wau) },
        { title: c.mau, cell: (x) => String(x.mau) }, { title: c.newPlayers, cell: (x) => String(x.newPlayers) }, { title: c.payingPlayers, cell: (x) => String(x.payingPlayers) },
        { title: c.revenue, cell: (x) => units(x.revenue) }, { title: c.arpdau, cell: (x) => units(x.arpdau) }, { title: c.arppu, cell: (x) => units(x.arppu) },
        { title: c.payerConversion, cell: (x) => `${(x.payerConversion * 100).toFixed(1)}%` }, { title: c.adViews, cell: (x) => String(x.adViews) },
        { title: c.sessions, cell: (x) => String(x.sessions) }, { title: c.avgSessionSeconds, cell: (x) => String(x.avgSessionSeconds) },
      ], d.days, TEXT.daily),
      download(h, "analytics-daily.csv", d.days),
    );
    const shaded = (cohort, n) => {
      const value = cohort.retained[n];
      const cell = h("span", { "data-retained": value ?? "" }, value === null ? TEXT.notYet : `${value} (${cohort.size ? Math.round((value / cohort.size) * 100) : 0}%)`);
      return cell;
    };
    const retentionTable = table([
      { title: c.date, cell: (x) => x.date }, { title: c.size, cell: (x) => String(x.size) },
      ...["d1", "d3", "d7", "d14", "d30"].map((n) => ({ title: c[n], cell: (x) => shaded(x, n) })),
    ], r.cohorts, TEXT.retention);
    // Shaded by value through the CSSOM (the console's CSP allows no inline style attributes).
    retentionTable.querySelectorAll("tbody tr").forEach((tr, i) => {
      const cohort = r.cohorts[i];
      if (!cohort) return;
      tr.querySelectorAll("td").forEach((td, j) => {
        if (j < 2) return;
        const value = cohort.retained[["d1", "d3", "d7", "d14", "d30"][j - 2]];
        if (value !== null && cohort.size > 0) td.style.backgroundColor = `rgba(37, 99, 235, ${(0.1 + 0.7 * (value / cohort.size)).toFixed(2)})`;
      });
    });
    cohorts.replaceChildren(retentionTable, download(h, "analytics-retention.csv", r.cohorts));
  };

  root.append(
    h("section", {}, h("h2", {}, TEXT.filters), h("form", { id: "analytics-filters", onsubmit: (e) => { e.preventDefault(); show(); } },
      h("label", {}, TEXT.app, inputs.app), h("label", {}, TEXT.platform, inputs.platform),
      h("label", {}, TEXT.from, inputs.from), h("label", {}, TEXT.to, inputs.to),
      h("button", { type: "submit" }, TEXT.show)), note),
    h("section", {}, h("h2", {}, TEXT.daily), charts, daily),
    h("section", {}, h("h2", {}, TEXT.retention), cohorts),
  );
  await show();
}
