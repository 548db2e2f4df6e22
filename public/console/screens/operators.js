// Operators: added and reset (one-time password, TOTP enrolment by QR code: operator-enrol.js),
// roles (confirmed first), disable and enable, end sessions. The CLI's `operator …` does the same.
import { addTexts, t } from "../i18n.js";
import { enrolPanel } from "./operator-enrol.js";

addTexts({
  en: {
    "operators.title": "Operators", "operators.name": "Name", "operators.role": "Role", "operators.roleOf": "Role of {name}", "operators.totp": "Second factor",
    "operators.none": "none", "operators.state": "State", "operators.disabled": "disabled", "operators.waiting": "waiting for first sign-in", "operators.active": "active",
    "operators.sessions": "Sessions", "operators.endSessions": "End sessions", "operators.endSessionsOf": "End the sessions of {name}", "operators.you": "you",
    "operators.enable": "Enable", "operators.disable": "Disable", "operators.roleChange": "Role of {name}",
    "operators.confirmRole": "Change {name}'s role from {from} to {to}? Their sessions end; they sign in again.",
    "operators.confirmDisable": "Disable operator {name}? They are signed out and can no longer sign in.",
    "operators.hint": "The CLI does the same: npm run admin -- operator add <name> --role <viewer|support|admin>, operator reset <name> [--totp].",
    "operators.add": "Add operator", "operators.addTotp": "Second factor (TOTP)", "operators.adding": "Add operator {name}",
    "operators.reset": "Reset password", "operators.resetTotp": "New second factor", "operators.resetOf": "Reset {name}",
    "operators.confirmReset": "Give {name} a new one-time password? Their sessions end and their current password stops working.",
    "operators.confirmResetTotp": "Give {name} a new one-time password and a new second factor? Their sessions end; their current password and authenticator entry stop working.",
  },
  "zh-CN": {
    "operators.title": "操作员", "operators.name": "账号", "operators.role": "角色", "operators.roleOf": "{name} 的角色", "operators.totp": "二次验证",
    "operators.none": "未启用", "operators.state": "状态", "operators.disabled": "已停用", "operators.waiting": "等待首次登录", "operators.active": "正常",
    "operators.sessions": "会话", "operators.endSessions": "强制下线", "operators.endSessionsOf": "强制 {name} 下线", "operators.you": "你自己",
    "operators.enable": "启用", "operators.disable": "停用", "operators.roleChange": "修改 {name} 的角色",
    "operators.confirmRole": "将 {name} 的角色从“{from}”改为“{to}”？其会话将结束，需要重新登录。",
    "operators.confirmDisable": "停用操作员 {name}？其将被强制下线且无法再登录。",
    "operators.hint": "命令行也可操作：npm run admin -- operator add <账号> --role <viewer|support|admin>，operator reset <账号> [--totp]。",
    "operators.add": "新增操作员", "operators.addTotp": "二次验证（TOTP）", "operators.adding": "新增操作员 {name}",
    "operators.reset": "重置密码", "operators.resetTotp": "重设二次验证", "operators.resetOf": "重置 {name}",
    "operators.confirmReset": "为 {name} 生成新的一次性密码？其会话将结束，原密码立即失效。",
    "operators.confirmResetTotp": "为 {name} 生成新的一次性密码和新的二次验证？其会话将结束，原密码和验证器中的旧条目立即失效。",
  },
});

export async function render(root, { api, h, table, attempt, load, operator }) {
  const list = h("div", { id: "operator-list" });
  const credentials = h("div", { id: "operator-credentials" });
  const post = (o, path, body) => api("POST", `/operators/${encodeURIComponent(o.name)}/${path}`, body);
  const show = (answer) => {
    credentials.replaceChildren(enrolPanel(h, attempt, answer, post));
    credentials.scrollIntoView({ block: "nearest" });
  };
  const reset = async (o, totp, button) => {
    const confirm = t(totp ? "operators.confirmResetTotp" : "operators.confirmReset", { name: o.name });
    const answer = await attempt(t("operators.resetOf", { name: o.name }), () => post(o, "reset", { totp }), { near: button, confirm });
    if (answer) {
      show(answer);
      await refresh();
    }
  };
  const name = h("input", { name: "name", required: true, maxlength: "63", autocomplete: "off", "aria-label": t("operators.name") });
  const role = h("select", { name: "role", "aria-label": t("operators.role") }, ["viewer", "support", "admin"].map((r) => h("option", { value: r }, t(`role.${r}`))));
  const totp = h("input", { type: "checkbox", name: "totp", checked: true });
  const addForm = h("form", { id: "operator-add", onsubmit: async (e) => {
    e.preventDefault();
    const body = { name: name.value.trim(), role: role.value, totp: totp.checked };
    const answer = await attempt(t("operators.adding", { name: body.name }), () => api("POST", "/operators", body), { near: e.currentTarget.querySelector("button") });
    if (answer) {
      name.value = "";
      show(answer);
      await refresh();
    }
  } }, h("label", {}, t("operators.name"), " ", name), " ", h("label", {}, t("operators.role"), " ", role), " ", h("label", {}, totp, " ", t("operators.addTotp")), " ", h("button", { type: "submit" }, t("operators.add")));
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
          { title: t("operators.reset"), cell: (o) => h("span", {},
            h("button", { type: "button", "aria-label": `${t("operators.reset")} ${o.name}`, onclick: (e) => reset(o, false, e.currentTarget) }, t("operators.reset")), " ",
            h("button", { type: "button", "aria-label": `${t("operators.resetTotp")} ${o.name}`, onclick: (e) => reset(o, true, e.currentTarget) }, t("operators.resetTotp"))) },
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
  root.append(h("section", {}, h("h2", {}, t("operators.title")), addForm, credentials, list, h("p", {}, t("operators.hint"))));
  await refresh();
}
