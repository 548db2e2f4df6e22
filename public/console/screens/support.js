// Customer service: the app's conversations (one per player, the most recently active first), a
// player's messages in the browser's local time, and a reply (support) that goes out through the
// player's platform. Sending is confirmed first, naming the player and the platform: it cannot be undone.
import { addTexts, formatTime, t } from "../i18n.js";

addTexts({
  en: {
    "support.title": "Customer service", "support.app": "App", "support.show": "Show conversations", "support.load": "Conversations",
    "support.player": "Player", "support.platform": "Platform", "support.waiting": "Waiting", "support.last": "Last message",
    "support.at": "Time", "support.open": "Open", "support.openOf": "Open the conversation with {user}", "support.conversations": "Conversations",
    "support.with": "Conversation with {user} ({app})", "support.messages": "Messages", "support.from": "From", "support.message": "Message",
    "support.fromPlayer": "Player", "support.fromOperator": "Operator {name}", "support.reply": "Reply", "support.send": "Send reply",
    "support.sending": "Reply to {user}", "support.loadOne": "Conversation",
    "support.kind.image": "[image] {text}", "support.kind.page": "[game page] {text}", "support.kind.enter": "[opened the conversation]",
    "support.confirm": "Send this reply to player {user} through {platform} (app {app})? A sent message cannot be taken back.",
  },
  "zh-CN": {
    "support.title": "客服消息", "support.app": "应用", "support.show": "查看会话", "support.load": "会话列表",
    "support.player": "玩家", "support.platform": "平台", "support.waiting": "待回复", "support.last": "最新消息",
    "support.at": "时间", "support.open": "打开", "support.openOf": "打开与 {user} 的会话", "support.conversations": "会话",
    "support.with": "与 {user} 的会话（{app}）", "support.messages": "消息", "support.from": "发送方", "support.message": "内容",
    "support.fromPlayer": "玩家", "support.fromOperator": "客服 {name}", "support.reply": "回复", "support.send": "发送回复",
    "support.sending": "回复 {user}", "support.loadOne": "会话",
    "support.kind.image": "[图片] {text}", "support.kind.page": "[小游戏页面] {text}", "support.kind.enter": "[进入会话]",
    "support.confirm": "确定通过 {platform}（应用 {app}）向玩家 {user} 发送此回复？消息发出后无法撤回。",
  },
});

const shown = (m) => (m.kind === "text" ? m.text : m.kind === "enter" ? t("support.kind.enter") : t(`support.kind.${m.kind}`, { text: m.text || m.detail.pagePath || "" }));

function replyId() {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `r-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

export async function render(root, { api, h, table, attempt, load, operator }) {
  const list = h("div", { id: "support-list" });
  const detail = h("div", { id: "support-conversation" });
  const form = h(
    "form",
    { id: "support-app", onsubmit: (e) => { e.preventDefault(); showList(); } },
    h("label", {}, t("support.app"), h("input", { name: "app", id: "support-app-key", value: "default", size: 10 })),
    h("button", { type: "submit", id: "support-show" }, t("support.show")),
  );
  const appOf = () => String(new FormData(form).get("app") || "default");
  const canReply = operator.role === "support" || operator.role === "admin";

  const showList = async () => {
    const app = appOf();
    const page = await load(t("support.load"), () => api("GET", `/support/conversations?app=${encodeURIComponent(app)}`));
    if (!page) return;
    list.replaceChildren(table([
      { title: t("support.player"), cell: (c) => c.userId },
      { title: t("support.platform"), cell: (c) => c.platform },
      { title: t("support.waiting"), cell: (c) => String(c.waiting) },
      { title: t("support.last"), cell: (c) => shown(c.last) },
      { title: t("support.at"), cell: (c) => formatTime(c.last.at) },
      { title: t("support.open"), cell: (c) => h("button", { type: "button", "aria-label": t("support.openOf", { user: c.userId }), onclick: () => showConversation(page.app, c.userId) }, t("support.open")) },
    ], page.conversations, t("support.conversations")));
  };

  const messagesTable = (messages) => table([
    { title: t("support.at"), cell: (m) => formatTime(m.at) },
    { title: t("support.from"), cell: (m) => (m.direction === "in" ? t("support.fromPlayer") : t("support.fromOperator", { name: m.operator ?? "" })) },
    { title: t("support.message"), cell: (m) => h("span", { className: `support-${m.direction}` }, shown(m)) },
  ], messages, t("support.messages"));

  const showConversation = async (app, userId) => {
    const fetchPage = () => load(t("support.loadOne"), () => api("GET", `/support/players/${encodeURIComponent(userId)}?app=${encodeURIComponent(app)}`));
    const page = await fetchPage();
    if (!page) return;
    const platform = [...page.messages].reverse().find((m) => m.direction === "in")?.platform ?? "";
    const messages = h("div", { id: "support-messages" }, messagesTable(page.messages));
    const text = h("textarea", { id: "support-reply-text", name: "text", rows: 3, cols: 60, maxlength: 2000, required: true, "aria-label": t("support.reply") });
    // One id per reply being written: a second click or a retry after a lost answer sends nothing again.
    let id = replyId();
    const reply = h(
      "form",
      { id: "support-reply", onsubmit: async (e) => {
        e.preventDefault();
        const body = { app, text: text.value, replyId: id };
        const confirm = t("support.confirm", { user: userId, platform, app });
        const sent = await attempt(t("support.sending", { user: userId }), () => api("POST", `/support/players/${encodeURIComponent(userId)}/reply`, body), { near: e.currentTarget, confirm });
        if (!sent) return;
        id = replyId();
        text.value = "";
        const now = await fetchPage();
        if (now) messages.replaceChildren(messagesTable(now.messages));
      } },
      h("label", {}, t("support.reply"), text),
      h("button", { type: "submit", id: "support-send" }, t("support.send")),
    );
    detail.replaceChildren(h("h3", {}, t("support.with", { user: userId, app })), messages, canReply && platform ? reply : "");
  };

  root.append(h("section", {}, h("h2", {}, t("support.title")), form, list, detail));
}
