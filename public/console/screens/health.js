// Health: processes, rooms and players per room type and process, login and error counts, order
// states, the reconciler's last sweeps.
import { addTexts, formatTime, t } from "../i18n.js";

addTexts({
  en: {
    "health.title": "Health", "health.thisProcess": "This process", "health.processes": "Processes", "health.process": "Process", "health.rooms": "Rooms",
    "health.players": "Players", "health.roomType": "Room type", "health.rates": "Logins and errors (this process, since start)",
    "health.loginsOk": "Logins ok", "health.loginsFailed": "Logins failed", "health.requests": "HTTP requests", "health.4xx": "HTTP 4xx", "health.5xx": "HTTP 5xx",
    "health.perMinute": "{count} ({rate}/min)", "health.orders": "Orders by state", "health.platform": "Platform", "health.kind": "Kind", "health.state": "State",
    "health.count": "Count", "health.sweeps": "Reconciler sweeps (this process)", "health.started": "Started", "health.finished": "Finished", "health.outcome": "Outcome",
    "health.ok": "ok", "health.failed": "failed",
    "health.processId": "Process id", "health.host": "Host", "health.pid": "PID", "health.node": "Node.js", "health.env": "Environment", "health.uptimeSec": "Up for",
    "health.rssBytes": "Memory (RSS)", "health.store": "Database", "health.cache": "Cache", "health.uptime": "{h} h {m} min", "health.mb": "{mb} MB",
  },
  "zh-CN": {
    "health.title": "运行状态", "health.thisProcess": "当前进程", "health.processes": "进程", "health.process": "进程", "health.rooms": "房间",
    "health.players": "玩家数", "health.roomType": "房间类型", "health.rates": "登录与错误（当前进程，自启动以来）",
    "health.loginsOk": "登录成功", "health.loginsFailed": "登录失败", "health.requests": "HTTP 请求", "health.4xx": "HTTP 4xx", "health.5xx": "HTTP 5xx",
    "health.perMinute": "{count}（每分钟 {rate}）", "health.orders": "各状态订单数", "health.platform": "平台", "health.kind": "类型", "health.state": "状态",
    "health.count": "数量", "health.sweeps": "对账任务（当前进程）", "health.started": "开始时间", "health.finished": "结束时间", "health.outcome": "结果",
    "health.ok": "成功", "health.failed": "失败",
    "health.processId": "进程 ID", "health.host": "主机", "health.pid": "PID", "health.node": "Node.js", "health.env": "运行环境", "health.uptimeSec": "已运行",
    "health.rssBytes": "内存（RSS）", "health.store": "数据库", "health.cache": "缓存", "health.uptime": "{h} 小时 {m} 分钟", "health.mb": "{mb} MB",
  },
});

const shown = {
  uptimeSec: (v) => t("health.uptime", { h: Math.floor(v / 3600), m: Math.floor((v % 3600) / 60) }),
  rssBytes: (v) => t("health.mb", { mb: Math.round(v / 1048576) }),
};

export async function render(root, { api, h, table, load }) {
  const health = await load(t("health.title"), () => api("GET", "/health"));
  if (!health) return;
  const p = health.thisProcess;
  const rate = (count, perMinute) => t("health.perMinute", { count, rate: perMinute });
  root.append(
    h("section", {}, h("h2", {}, t("health.thisProcess")),
      h("dl", { id: "this-process" }, ...Object.entries(p).flatMap(([k, v]) => [h("dt", {}, t(`health.${k}`)), h("dd", {}, shown[k] ? shown[k](v) : String(v))]))),
    h("section", {}, h("h2", {}, t("health.processes")),
      table([{ title: t("health.process"), cell: (x) => x.processId }, { title: t("health.rooms"), cell: (x) => String(x.rooms) }, { title: t("health.players"), cell: (x) => String(x.players) }], health.processes, t("health.processes"))),
    h("section", {}, h("h2", {}, t("health.rooms")),
      table([{ title: t("health.roomType"), cell: (x) => x.name }, { title: t("health.process"), cell: (x) => x.processId }, { title: t("health.rooms"), cell: (x) => String(x.rooms) }, { title: t("health.players"), cell: (x) => String(x.players) }], health.rooms, t("health.rooms"))),
    h("section", {}, h("h2", {}, t("health.rates")),
      h("dl", { id: "rates" },
        h("dt", {}, t("health.loginsOk")), h("dd", {}, rate(health.logins.ok, health.logins.okPerMinute)),
        h("dt", {}, t("health.loginsFailed")), h("dd", {}, rate(health.logins.failed, health.logins.failedPerMinute)),
        h("dt", {}, t("health.requests")), h("dd", {}, String(health.requests.total)),
        h("dt", {}, t("health.4xx")), h("dd", {}, String(health.requests.clientErrors)),
        h("dt", {}, t("health.5xx")), h("dd", {}, rate(health.requests.serverErrors, health.requests.serverErrorsPerMinute)))),
    h("section", {}, h("h2", {}, t("health.orders")),
      table([{ title: t("health.platform"), cell: (x) => x.platform }, { title: t("health.kind"), cell: (x) => t(`kind.${x.kind}`) }, { title: t("health.state"), cell: (x) => t(`state.${x.state}`) }, { title: t("health.count"), cell: (x) => String(x.count) }], health.orders, t("health.orders"))),
    h("section", {}, h("h2", {}, t("health.sweeps")),
      table([{ title: t("health.started"), cell: (x) => formatTime(x.startedAt) }, { title: t("health.finished"), cell: (x) => formatTime(x.finishedAt) }, { title: t("health.outcome"), cell: (x) => t(x.ok ? "health.ok" : "health.failed") }], health.reconcilerRuns, t("health.sweeps"))),
  );
}
