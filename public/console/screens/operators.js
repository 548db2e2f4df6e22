// Operators: roles (confirmed first), disable and enable, end sessions. Accounts are created and
// reset with `npm run admin -- operator add|reset`, which hands out the one-time password.
import { addTexts, t } from "../i18n.js";

addTexts({
  en: {
    "operators.title": "Operators", "operators.name": "Name", "operators.role": "Role", "operators.roleOf": "Role of {name}", "operators.totp": "Second factor",
    "operators.none": "none", "operators.state": "State", "operators.disabled": "disabled", "operators.waiting": "waiting for first sign-in", "operators.active": "active",
    "operators.sessions": "Sessions", "operators.endSessions": "End sessions", "operators.endSessionsOf": "End the sessions of {name}", "operators.you": "you",
    "operators.enable": "Enable", "operators.disable": "Disable", "operators.roleChange": "Role of {name}",
    "operators.confirmRole": "Change {name}'s role from {from} to {to}? Their sessions end; they sign in again.",
    "operators.confirmDisable": "Disable operator {name}? They are signed out and can no longer sign in.",
    "operators.hint": "New operators and password resets: npm run admin -- operator add <name> --role <viewer|support|admin>, operator reset <name>.",
  },
  "zh-CN": {
    "operators.title": "操作员", "operators.name": "账号", "operators.role": "角色", "operators.roleOf": "{name} 的角色", "operators.totp": "二次验证",
    "operators.none": "未启用", "operators.state": "状态", "operators.disabled": "已停用", "operators.waiting": "等待首次登录", "operators.active": "正常",
    "operators.sessions": "会话", "operators.endSessions": "强制下线", "operators.endSessionsOf": "强制 {name} 下线", "operators.you": "你自己",
    "operators.enable": "启用", "operators.disable": "停用", "operators.roleChange": "修改 {name} 的角色",
    "operators.confirmRole": "将 {name} 的角色从“{from}”改为“{to}”？其会话将结束，需要重新登录。",
    "operators.confirmDisable": "停用操作员 {name}？其将被强制下线且无法再登录。",
    "operators.hint": "新增操作员或重置密码：npm run admin -- operator add <账号> --role <viewer|support|admin>，operator reset <账号>。",
  },
});

export async function render(root, { api, h, table, attempt, load, operator }) {
  const list = h("div", { id: "operator-list" });
  const post = (o, path, body) => api("POST", `/operators/${encodeURIComponent(o.name)}/${path}`, body);
  const changeRole = async (o, select) => {
    const to = select.value;
    const confirm = t("operators.confirmRole", { name: o.name, from: t(`role.${o.role}`), to: t(`role.${to}`) });
    if (await attempt(t("operators.roleChange", { name: o.name }), () => post(o, "role", { role: to }), { near: select, confirm })) await refresh();
    else select.value = o.role; // cancelled or refused: the list shows what is stored
  };
  const refresh = async () => {
    const operators = await load(t("operators.title"), () => api("GET", "/operators"));
    if (!operators) return;
    list.replaceChildren(
      table(
        [
          { title: t("operators.name"), cell: (o) => o.name },
          { title: t("operators.role"), cell: (o) => h("select", { "aria-label": t("operators.roleOf", { name: o.name }), onchange: (e) => changeRole(o, e.target) },
            ["viewer", "support", "admin"].map((r) => h("option", { value: r, selected: r === o.role }, t(`role.${r}`)))) },
          { title: t("operators.totp"), cell: (o) => (o.totp ? "TOTP" : t("operators.none")) },
          { title: t("operators.state"), cell: (o) => t(o.disabled ? "operators.disabled" : o.mustChangePassword ? "operators.waiting" : "operators.active") },
          { title: t("operators.sessions"), cell: (o) => h("button", { type: "button", "aria-label": t("operators.endSessionsOf", { name: o.name }), onclick: async (e) => (await attempt(t("operators.endSessionsOf", { name: o.name }), () => post(o, "end-sessions"), { near: e.currentTarget })) && refresh() }, t("operators.endSessions")) },
          { title: "", cell: (o) => o.name === operator.name ? t("operators.you") : h("button", { type: "button", onclick: async (e) => {
            const what = `${t(o.disabled ? "operators.enable" : "operators.disable")} ${o.name}`;
            const confirm = o.disabled ? undefined : t("operators.confirmDisable", { name: o.name });
            if (await attempt(what, () => post(o, o.disabled ? "enable" : "disable"), { near: e.currentTarget, confirm })) await refresh();
          } }, t(o.disabled ? "operators.enable" : "operators.disable")) },
        ],
        operators,
        t("operators.title"),
      ),
    );
  };
  root.append(h("section", {}, h("h2", {}, t("operators.title")), h("p", {}, t("operators.hint")), list));
  await refresh();
}
