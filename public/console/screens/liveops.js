// LiveOps: an app's running definitions (flags, audiences, experiments, live events, each event's
// running or next occurrence in the operator's time), a new version checked first with every
// problem listed at once, then published after a confirmation naming what changes; the history
// with a rollback per version; an experiment started or stopped with one button. Every change is a
// new version (docs/liveops.md) that every server process serves within a second.
import { addTexts, formatTime, t, zoneOf } from "../i18n.js";

addTexts({
  en: {
    "lo.app": "App", "lo.show": "Show", "lo.load": "LiveOps", "lo.running": "Version {version} in use, published by {by} at {at}.",
    "lo.settings": "Version 0 in use: the settings' definitions.", "lo.zone": "Schedules run in {zone}; times below are in your time ({local}).",
    "lo.flags": "Flags", "lo.audiences": "Audiences", "lo.experiments": "Experiments", "lo.events": "Live events",
    "lo.key": "Key", "lo.default": "Default", "lo.description": "Description", "lo.targeted": "Audience values", "lo.id": "Id", "lo.rule": "Rule",
    "lo.layer": "Layer", "lo.audience": "Audience", "lo.everyone": "everyone", "lo.variants": "Variants", "lo.starts": "Starts", "lo.ends": "Ends",
    "lo.status": "Status", "lo.isRunning": "running", "lo.notRunning": "not running", "lo.start": "Start", "lo.stop": "Stop",
    "lo.name": "Name", "lo.schedule": "Schedule", "lo.window": "Now or next", "lo.sale": "Economy", "lo.active": "active", "lo.upcoming": "upcoming", "lo.finished": "finished",
    "lo.fixed": "fixed window", "lo.every": "{at} {days} for {minutes} min", "lo.everyDay": "every day", "lo.open": "open",
    "lo.prices": "sale {items}", "lo.multipliers": "rewards ×{factors}", "lo.limited": "limited {items}",
    "lo.publishTitle": "Publish a new version", "lo.editor": "Definitions (JSON; checked whole, then stored as the next version)",
    "lo.check": "Check", "lo.publish": "Publish as next version", "lo.notJson": "Definitions: not JSON ({error})", "lo.checking": "Check",
    "lo.ok": "No problems: version {next} can be published.", "lo.problems": "{count} problem(s); nothing was published, version {version} stays:",
    "lo.confirmPublish": "Publish these definitions for app {app} as version {next} (now {current})? Every server process serves them within a second. {changes}",
    "lo.noChange": "Nothing differs from the running version.", "lo.added": "{section} added: {ids}.", "lo.removed": "{section} removed: {ids}.", "lo.changed": "{section} changed: {ids}.",
    "lo.published": "Version {version} is published.", "lo.history": "History", "lo.version": "Version", "lo.by": "By", "lo.at": "At",
    "lo.rollback": "Roll back to this", "lo.inUse": "{version} (in use)", "lo.view": "View", "lo.versionLoad": "Version {version}",
    "lo.confirmRollback": "Publish version {version}'s definitions of app {app} again as version {next} (now {current})? Every player gets its flags, experiments and events within a second.",
    "lo.confirmStart": "Start experiment {id} of app {app} now, with no end (version {next})? Players of its audience get a variant and its flag values from now on.",
    "lo.confirmStop": "Stop experiment {id} of app {app} now (version {next})? Its players get the flags without its variants; their assignments are kept.",
  },
  "zh-CN": {
    "lo.app": "应用", "lo.show": "查看", "lo.load": "运营配置", "lo.running": "正在使用版本 {version}，由 {by} 于 {at} 发布。",
    "lo.settings": "正在使用版本 0：配置文件中的定义。", "lo.zone": "排期按 {zone} 时间执行；下列时间为您的本地时间（{local}）。",
    "lo.flags": "功能开关", "lo.audiences": "受众", "lo.experiments": "实验", "lo.events": "限时活动",
    "lo.key": "键", "lo.default": "默认值", "lo.description": "说明", "lo.targeted": "受众取值", "lo.id": "编号", "lo.rule": "规则",
    "lo.layer": "层", "lo.audience": "受众", "lo.everyone": "全部玩家", "lo.variants": "分组", "lo.starts": "开始", "lo.ends": "结束",
    "lo.status": "状态", "lo.isRunning": "进行中", "lo.notRunning": "未进行", "lo.start": "开始", "lo.stop": "停止",
    "lo.name": "名称", "lo.schedule": "排期", "lo.window": "当前或下一次", "lo.sale": "经济调整", "lo.active": "进行中", "lo.upcoming": "未开始", "lo.finished": "已结束",
    "lo.fixed": "固定时段", "lo.every": "{days} {at} 起，持续 {minutes} 分钟", "lo.everyDay": "每天", "lo.open": "不限",
    "lo.prices": "特价 {items}", "lo.multipliers": "奖励 ×{factors}", "lo.limited": "限时 {items}",
    "lo.publishTitle": "发布新版本", "lo.editor": "定义（JSON；整体校验后保存为下一个版本）",
    "lo.check": "校验", "lo.publish": "发布为新版本", "lo.notJson": "定义：不是有效的 JSON（{error}）", "lo.checking": "校验",
    "lo.ok": "没有问题：可以发布为版本 {next}。", "lo.problems": "共 {count} 个问题；未发布任何内容，仍使用版本 {version}：",
    "lo.confirmPublish": "确定将这些定义发布为应用 {app} 的版本 {next}（当前 {current}）？所有服务器进程将在一秒内生效。{changes}",
    "lo.noChange": "与当前版本没有差别。", "lo.added": "新增{section}：{ids}。", "lo.removed": "删除{section}：{ids}。", "lo.changed": "修改{section}：{ids}。",
    "lo.published": "版本 {version} 已发布。", "lo.history": "历史版本", "lo.version": "版本", "lo.by": "操作人", "lo.at": "时间",
    "lo.rollback": "回滚到此版本", "lo.inUse": "{version}（使用中）", "lo.view": "查看", "lo.versionLoad": "版本 {version}",
    "lo.confirmRollback": "确定将应用 {app} 的版本 {version} 的定义重新发布为版本 {next}（当前 {current}）？全体玩家将在一秒内获得该版本的开关、实验和活动。",
    "lo.confirmStart": "确定立即开始应用 {app} 的实验 {id}，不设结束时间（版本 {next}）？其受众中的玩家将从现在起被分组并获得对应的开关值。",
    "lo.confirmStop": "确定立即停止应用 {app} 的实验 {id}（版本 {next}）？其玩家将不再获得分组的开关值；分组记录会保留。",
  },
});

const SECTIONS = [["flags", "key"], ["audiences", "audienceId"], ["experiments", "experimentId"], ["events", "eventId"]];
const json = (value) => JSON.stringify(value);

/** What publishing `next` over `current` changes, section by section, in words. */
export function describeChanges(current, next) {
  const lines = [];
  for (const [section, key] of SECTIONS) {
    const before = new Map((current[section] ?? []).map((e) => [e?.[key], e]));
    const after = new Map((Array.isArray(next[section]) ? next[section] : []).map((e) => [e?.[key], e]));
    const added = [...after.keys()].filter((id) => !before.has(id));
    const removed = [...before.keys()].filter((id) => !after.has(id));
    const changed = [...after.keys()].filter((id) => before.has(id) && json(normalise(before.get(id))) !== json(normalise(after.get(id))));
    const name = t(`lo.${section}`);
    if (added.length) lines.push(t("lo.added", { section: name, ids: added.join(", ") }));
    if (removed.length) lines.push(t("lo.removed", { section: name, ids: removed.join(", ") }));
    if (changed.length) lines.push(t("lo.changed", { section: name, ids: changed.join(", ") }));
  }
  if ((next.timeZone ?? "UTC") !== current.timeZone) lines.push(t("lo.changed", { section: "timeZone", ids: next.timeZone ?? "UTC" }));
  return lines.join(" ") || t("lo.noChange");
}

/** Keys sorted and empty defaults dropped, so an entry as parsed and as typed compare equal. */
function normalise(value) {
  if (Array.isArray(value)) return value.map(normalise);
  if (!value || typeof value !== "object") return value;
  const empty = (v) => (Array.isArray(v) && v.length === 0) || (v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0);
  return Object.fromEntries(Object.keys(value).sort().filter((k) => !empty(value[k])).map((k) => [k, normalise(value[k])]));
}

export async function render(root, ctx) {
  const { api, h, table, attempt, load, operator } = ctx;
  const admin = operator.role === "admin";
  let shown;
  const appInput = h("input", { id: "liveops-app", name: "app", value: "default", size: 12 });
  const app = () => appInput.value.trim() || "default";
  const summary = h("p", { id: "liveops-version" });
  const zone = h("p", { id: "liveops-zone" });
  const box = h("div", { id: "liveops-running" });
  const problems = h("ul", { id: "liveops-problems", className: "problems" });
  const checkLine = h("p", { id: "liveops-check-result", className: "result", role: "status" });
  const editor = h("textarea", { id: "liveops-editor", rows: 18, cols: 90, spellcheck: "false" });
  const historyBox = h("div", { id: "liveops-history" });
  const oldBox = h("pre", { id: "liveops-old" });
  const time = (iso) => (iso ? formatTime(iso) : t("lo.open"));
  const section = (id, title, content) => h("section", { id, "aria-labelledby": `${id}-title` }, h("h2", { id: `${id}-title` }, title), content);

  function showProblems(list, version) {
    checkLine.textContent = list.length ? t("lo.problems", { count: list.length, version }) : t("lo.ok", { next: version + 1 });
    checkLine.className = `result ${list.length ? "error" : "ok"}`;
    problems.replaceChildren(...list.map((p) => h("li", {}, p)));
  }

  function drawRunning(view) {
    const d = view.definitions;
    const experiments = new Map(view.experiments.map((e) => [e.experimentId, e]));
    const windows = new Map(view.events.map((e) => [e.eventId, e]));
    const runButton = (e) => {
      const run = !experiments.get(e.experimentId).running;
      const confirm = t(run ? "lo.confirmStart" : "lo.confirmStop", { id: e.experimentId, app: view.app, next: view.version + 1 });
      const button = h("button", { type: "button", className: run ? undefined : "danger", "data-experiment": e.experimentId, onclick: async () => {
        const done = await attempt(t(run ? "lo.start" : "lo.stop"), () => api("POST", `/liveops/experiments/${encodeURIComponent(e.experimentId)}/${run ? "start" : "stop"}`, { app: view.app, expectedVersion: view.version }), { confirm });
        if (done) await refresh(t("lo.published", { version: done.version }));
      } }, t(run ? "lo.start" : "lo.stop"));
      return button;
    };
    const schedule = (e) => {
      const s = windows.get(e.eventId).schedule;
      if (!s) return t("lo.fixed");
      return t("lo.every", { at: s.at, days: s.days ? s.days.join(", ") : t("lo.everyDay"), minutes: s.durationMinutes });
    };
    const economy = (e) => [
      Object.keys(e.prices).length ? t("lo.prices", { items: Object.entries(e.prices).map(([item, p]) => `${item} ${Object.entries(p).map(([c, n]) => `${n} ${c}`).join("/")}`).join(", ") }) : "",
      Object.keys(e.rewardMultipliers).length ? t("lo.multipliers", { factors: Object.entries(e.rewardMultipliers).map(([k, f]) => `${k} ${f}`).join(", ") }) : "",
      e.limitedItems.length ? t("lo.limited", { items: e.limitedItems.join(", ") }) : "",
    ].filter(Boolean).join("; ");
    const state = (e) => { const w = windows.get(e.eventId); return w.active ? t("lo.active") : w.finished ? t("lo.finished") : t("lo.upcoming"); };
    box.replaceChildren(
      section("liveops-flags", t("lo.flags"), table([
        { title: t("lo.key"), cell: (f) => f.key }, { title: t("lo.default"), cell: (f) => json(f.default) }, { title: t("lo.description"), cell: (f) => f.description ?? "" },
        { title: t("lo.targeted"), cell: (f) => f.audiences.map((a) => `${a.audienceId}: ${json(a.value)}`).join("; ") },
      ], d.flags, t("lo.flags"))),
      section("liveops-audiences", t("lo.audiences"), table([
        { title: t("lo.id"), cell: (a) => a.audienceId }, { title: t("lo.description"), cell: (a) => a.description ?? "" }, { title: t("lo.rule"), cell: (a) => json(a.rule) },
      ], d.audiences, t("lo.audiences"))),
      section("liveops-experiments", t("lo.experiments"), table([
        { title: t("lo.id"), cell: (e) => e.experimentId }, { title: t("lo.layer"), cell: (e) => e.layer ?? "" }, { title: t("lo.audience"), cell: (e) => e.audienceId ?? t("lo.everyone") },
        { title: t("lo.variants"), cell: (e) => e.variants.map((v) => `${v.variant} ${v.weight}${Object.keys(v.flags).length ? ` ${json(v.flags)}` : ""}`).join("; ") },
        { title: t("lo.starts"), cell: (e) => time(e.startsAt) }, { title: t("lo.ends"), cell: (e) => time(e.endsAt) },
        { title: t("lo.status"), cell: (e) => h("span", { className: "experiment-status" }, experiments.get(e.experimentId).running ? t("lo.isRunning") : t("lo.notRunning")) },
        ...(admin ? [{ title: "", cell: runButton }] : []),
      ], d.experiments, t("lo.experiments"))),
      section("liveops-events", t("lo.events"), table([
        { title: t("lo.id"), cell: (e) => e.eventId }, { title: t("lo.name"), cell: (e) => e.name }, { title: t("lo.audience"), cell: (e) => e.audienceId ?? t("lo.everyone") },
        { title: t("lo.schedule"), cell: schedule },
        { title: t("lo.window"), cell: (e) => { const w = windows.get(e.eventId); return w.finished ? "—" : `${time(w.startsAt)} – ${time(w.endsAt)}`; } },
        { title: t("lo.status"), cell: state }, { title: t("lo.sale"), cell: economy },
      ], d.events, t("lo.events"))),
    );
  }

  async function drawHistory(view) {
    const found = await load(t("lo.history"), () => api("GET", `/liveops/versions?app=${encodeURIComponent(view.app)}`));
    if (!found) return;
    const rows = [...found.versions, { version: 0, by: null, at: null }];
    historyBox.replaceChildren(table([
      { title: t("lo.version"), cell: (v) => (v.version === found.current ? t("lo.inUse", { version: v.version }) : String(v.version)) },
      { title: t("lo.by"), cell: (v) => v.by ?? "—" }, { title: t("lo.at"), cell: (v) => formatTime(v.at) },
      { title: "", cell: (v) => h("span", {},
        h("button", { type: "button", "data-view": v.version, onclick: async () => {
          const old = await load(t("lo.versionLoad", { version: v.version }), () => api("GET", `/liveops/versions/${v.version}?app=${encodeURIComponent(view.app)}`));
          if (old) oldBox.textContent = `${t("lo.versionLoad", { version: v.version })}\n${JSON.stringify(old.definitions, null, 2)}`;
        } }, t("lo.view")),
        admin && v.version !== found.current ? h("button", { type: "button", className: "danger", "data-rollback": v.version, onclick: async (e) => {
          const confirm = t("lo.confirmRollback", { version: v.version, app: view.app, next: view.version + 1, current: view.version });
          const done = await attempt(t("lo.rollback"), () => api("POST", `/liveops/versions/${v.version}/rollback`, { app: view.app, expectedVersion: view.version }), { near: e.target, confirm });
          if (done) await refresh(t("lo.published", { version: done.version }));
        } }, t("lo.rollback")) : null) },
    ], rows, t("lo.history")));
  }

  async function refresh(message) {
    const view = await load(t("lo.load"), () => api("GET", `/liveops?app=${encodeURIComponent(app())}`));
    if (!view) return;
    shown = view;
    summary.textContent = view.version === 0 ? t("lo.settings") : t("lo.running", { version: view.version, by: view.by, at: formatTime(view.at) });
    zone.textContent = t("lo.zone", { zone: view.definitions.timeZone, local: zoneOf(new Date()) });
    drawRunning(view);
    editor.value = JSON.stringify(view.definitions, null, 2);
    if (message) ctx.say(message);
    await drawHistory(view);
  }

  function parsed() {
    try {
      return JSON.parse(editor.value);
    } catch (err) {
      showProblems([t("lo.notJson", { error: err.message })], shown.version);
      return undefined;
    }
  }
  const check = async () => {
    const definitions = parsed();
    if (definitions === undefined) return undefined;
    const found = await attempt(t("lo.checking"), () => api("POST", "/liveops/check", { app: shown.app, definitions }), { quiet: true });
    if (!found) return undefined;
    showProblems(found.problems, found.version);
    return found.problems.length === 0 ? definitions : undefined;
  };
  const publishForm = h("form", { id: "liveops-publish-form", onsubmit: async (e) => {
    e.preventDefault();
    const definitions = await check();
    if (!definitions) return;
    const confirm = t("lo.confirmPublish", { app: shown.app, next: shown.version + 1, current: shown.version, changes: describeChanges(shown.definitions, definitions) });
    const onError = (err) => err.code === "liveops_invalid" && showProblems(err.data?.problems ?? [], shown.version);
    const done = await attempt(t("lo.publish"), () => api("POST", "/liveops/publish", { app: shown.app, expectedVersion: shown.version, definitions }), { near: publishForm, confirm, onError });
    if (done) await refresh(t("lo.published", { version: done.version }));
  } },
    h("label", {}, t("lo.editor"), editor),
    h("button", { type: "button", id: "liveops-check", onclick: check }, t("lo.check")),
    h("button", { type: "submit", id: "liveops-publish" }, t("lo.publish")),
  );
  const picker = h("form", { id: "liveops-pick", onsubmit: (e) => (e.preventDefault(), refresh()) }, h("label", {}, t("lo.app"), appInput), h("button", { type: "submit" }, t("lo.show")));
  root.append(
    h("section", {}, picker, summary, zone),
    box,
    ...(admin ? [section("liveops-publishing", t("lo.publishTitle"), h("div", {}, publishForm, checkLine, problems))] : []),
    section("liveops-history-section", t("lo.history"), h("div", {}, historyBox, oldBox)),
  );
  await refresh();
}
