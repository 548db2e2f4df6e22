// Mail: send currencies and items to one player or to every player of an app, with an expiry. Each
// player claims a mail once; the same mail id again is the same mail. Mail to every player is
// confirmed first, naming the app, the title and the attachments.
import { addTexts, describeGoods, formatTime, t } from "../i18n.js";

addTexts({
  en: {
    "mail.title": "Send mail", "mail.user": "Player's user id", "mail.everyone": " every player of the app", "mail.app": "App", "mail.subject": "Title",
    "mail.body": "Text", "mail.currencies": "Currencies (id=amount, e.g. gems=5: the app's catalog's ids only)", "mail.items": "Items (id=count, e.g. potion=1)",
    "mail.expires": "Expires (empty: the default)", "mail.id": "Mail id (optional; same id = same mail)", "mail.send": "Send mail", "mail.what": "Mail",
    "mail.nobody": "Name a player or tick “every player of the app”.",
    "mail.confirmAll": "Send “{title}” to EVERY player of app {app}?\nAttachments: {goods}\nEach player can claim it once.",
    "mail.sent": "Mail {mailId} sent to {to}; attachments {goods}; expires {expires}.", "mail.repeated": "Mail {mailId} was already sent (same id): nothing new was sent.",
    "mail.all": "every player of {app}",
  },
  "zh-CN": {
    "mail.title": "发送邮件", "mail.user": "玩家用户 ID", "mail.everyone": " 该应用的全部玩家", "mail.app": "应用", "mail.subject": "标题",
    "mail.body": "正文", "mail.currencies": "货币（编号=数量，如 gems=5，仅限商品目录中的编号）", "mail.items": "物品（编号=数量，如 potion=1）",
    "mail.expires": "过期时间（留空为默认）", "mail.id": "邮件编号（可选；相同编号视为同一封邮件）", "mail.send": "发送邮件", "mail.what": "邮件",
    "mail.nobody": "请填写玩家，或勾选“该应用的全部玩家”。",
    "mail.confirmAll": "确定向应用 {app} 的全部玩家发送“{title}”？\n附件：{goods}\n每位玩家可领取一次。",
    "mail.sent": "邮件 {mailId} 已发送给 {to}；附件 {goods}；过期时间 {expires}。", "mail.repeated": "邮件 {mailId} 此前已发送（相同编号），未重复发送。",
    "mail.all": "{app} 的全部玩家",
  },
});

export async function render(root, { api, h, attempt, keyValuePairs: pairs, idPattern }) {
  const result = h("p", { id: "mail-result", className: "result" });
  const form = h(
    "form",
    { id: "mail-form", onsubmit: async (e) => {
      e.preventDefault();
      const d = new FormData(form);
      const body = {
        app: d.get("app") || "default",
        userId: d.get("everyone") ? null : d.get("userId") || null,
        title: d.get("title"),
        body: d.get("body") || "",
        currencies: Object.fromEntries(pairs(d.get("currencies"))),
        items: pairs(d.get("items")).map(([itemId, count]) => ({ itemId, count })),
        ...(d.get("expiresAt") ? { expiresAt: new Date(d.get("expiresAt")).toISOString() } : {}),
        ...(d.get("mailId") ? { mailId: d.get("mailId") } : {}),
      };
      if (body.userId === null && !d.get("everyone")) return (result.textContent = t("mail.nobody"));
      const goods = describeGoods(body);
      const confirm = body.userId === null ? t("mail.confirmAll", { app: body.app, title: body.title, goods }) : undefined;
      result.textContent = "";
      const sent = await attempt(t("mail.what"), () => api("POST", "/mail", body), { near: form, confirm });
      if (!sent) return;
      const to = sent.userId ?? t("mail.all", { app: body.app });
      result.textContent = sent.created === false ? t("mail.repeated", { mailId: sent.mailId }) : t("mail.sent", { mailId: sent.mailId, to, goods, expires: formatTime(sent.expiresAt) });
    } },
    h("label", {}, t("mail.user"), h("input", { name: "userId", id: "mail-user", size: 38 })),
    h("label", {}, h("input", { type: "checkbox", name: "everyone", id: "mail-everyone" }), t("mail.everyone")),
    h("label", {}, t("mail.app"), h("input", { name: "app", id: "mail-app", value: "default", size: 10 })),
    h("label", {}, t("mail.subject"), h("input", { name: "title", id: "mail-title", required: true, maxlength: 100 })),
    h("label", {}, t("mail.body"), h("textarea", { name: "body", id: "mail-body", rows: 3, maxlength: 2000 })),
    h("label", {}, t("mail.currencies"), h("input", { name: "currencies", id: "mail-currencies", size: 24 })),
    h("label", {}, t("mail.items"), h("input", { name: "items", id: "mail-items", size: 24 })),
    h("label", {}, t("mail.expires"), h("input", { name: "expiresAt", id: "mail-expires", type: "datetime-local" })),
    h("label", {}, t("mail.id"), h("input", { name: "mailId", id: "mail-id", pattern: idPattern })),
    h("button", { type: "submit", id: "mail-submit" }, t("mail.send")),
  );
  root.append(h("section", {}, h("h2", {}, t("mail.title")), form, result));
}
