// One player's page below their profile (one read, GET /players/{id}/page): the last login per app,
// the wallet and inventory of one app with its ledger (what each change granted or took, when, from
// which source, why, and which operator where a console action made it), mail and leaderboard
// records; and their live rooms (asked of the rooms themselves). The orders and actions stay in
// players.js. Times in the operator's zone.
import { addTexts, formatTime, t } from "../i18n.js";

addTexts({
  en: {
    "page.load": "Player page", "page.summary": "Logins and app", "page.lastLogin": "Last login", "page.noLogin": "no live session (a login is known while its session lives)",
    "page.loginIn": "{app}: {at}", "page.app": "App", "page.show": "Show", "page.walletTitle": "Wallet and inventory", "page.noEconomy": "The economy is not part of this server.",
    "page.apps": "Apps with economy records: {apps}", "page.none": "none", "page.currency": "Currency", "page.balance": "Balance", "page.wallet": "Wallet",
    "page.item": "Item", "page.count": "Count", "page.inventory": "Inventory", "page.ledgerTitle": "Ledger (newest first)", "page.ledger": "Ledger",
    "page.at": "When", "page.source": "Source", "page.sourceId": "Source id", "page.change": "Change", "page.note": "Why", "page.by": "By", "page.refused": "refused: {reason}",
    "page.mailTitle": "Mail", "page.mail": "Mail", "page.title": "Title", "page.attachments": "Attachments", "page.sent": "Sent", "page.expires": "Expires",
    "page.claimed": "Claimed", "page.notClaimed": "not claimed", "page.recordsTitle": "Leaderboard records", "page.records": "Records", "page.board": "Board",
    "page.period": "Period", "page.score": "Score", "page.updated": "Updated", "page.rooms": "Live rooms", "page.roomsLoad": "Rooms", "page.roomId": "Room id",
    "page.type": "Type", "page.process": "Process", "page.host": "Host", "page.seat": "Seat", "page.connected": "connected", "page.held": "held for reconnection",
    "page.players": "Players", "page.unanswered": "{count} room(s) did not answer in time", "page.system": "the game or platform",
    "source.operator": "operator grant", "source.operator_debit": "operator debit", "source.mail": "mail", "source.coin_order": "coin purchase", "source.item_push": "item purchase",
    "source.purchase": "shop purchase", "kind.item_purchase": "item purchase",
  },
  "zh-CN": {
    "page.load": "玩家主页", "page.summary": "登录与应用", "page.lastLogin": "最近登录", "page.noLogin": "当前无会话（会话有效期内才能得知登录时间）",
    "page.loginIn": "{app}：{at}", "page.app": "应用", "page.show": "查看", "page.walletTitle": "钱包与背包", "page.noEconomy": "本服务器未启用经济系统。",
    "page.apps": "有经济记录的应用：{apps}", "page.none": "无", "page.currency": "货币", "page.balance": "余额", "page.wallet": "钱包",
    "page.item": "物品", "page.count": "数量", "page.inventory": "背包", "page.ledgerTitle": "流水（最新在前）", "page.ledger": "流水",
    "page.at": "时间", "page.source": "来源", "page.sourceId": "来源编号", "page.change": "变动", "page.note": "原因", "page.by": "操作人", "page.refused": "已拒绝：{reason}",
    "page.mailTitle": "邮件", "page.mail": "邮件", "page.title": "标题", "page.attachments": "附件", "page.sent": "发送时间", "page.expires": "过期时间",
    "page.claimed": "领取时间", "page.notClaimed": "未领取", "page.recordsTitle": "排行榜记录", "page.records": "记录", "page.board": "排行榜",
    "page.period": "周期", "page.score": "分数", "page.updated": "更新时间", "page.rooms": "所在房间", "page.roomsLoad": "房间", "page.roomId": "房间 ID",
    "page.type": "类型", "page.process": "进程", "page.host": "主机", "page.seat": "座位", "page.connected": "在线", "page.held": "等待重连",
    "page.players": "人数", "page.unanswered": "{count} 个房间未及时响应", "page.system": "游戏或平台",
    "source.operator": "客服发放", "source.operator_debit": "客服扣除", "source.mail": "邮件", "source.coin_order": "游戏币购买", "source.item_push": "道具直购",
    "source.purchase": "商店购买", "kind.item_purchase": "道具直购",
  },
});

const sourceText = (source) => (t(`source.${source}`) === `source.${source}` ? source : `${t(`source.${source}`)} (${source})`);

/** "gems +40, sword −1": a change's currencies and items, signed. */
function changeText(currencies, items) {
  const signed = (n) => (n > 0 ? `+${n}` : `−${-n}`);
  return [...Object.entries(currencies ?? {}).map(([id, n]) => `${id} ${signed(n)}`), ...(items ?? []).map((i) => `${i.itemId} ${signed(i.count)}`)].join(", ");
}

/** The page's sections for `userId` in `app`, with an app picker that redraws them. */
export async function playerPage(ctx, userId, app = "default") {
  const { h } = ctx;
  const box = h("div", { id: "player-page" });
  const appInput = h("input", { id: "page-app", value: app, size: 10 });
  const picker = h("form", { id: "page-app-form", onsubmit: (e) => { e.preventDefault(); draw(); } }, h("label", {}, t("page.app"), appInput), h("button", { type: "submit" }, t("page.show")));
  const draw = async () => {
    const view = await ctx.load(t("page.load"), () => ctx.api("GET", `/players/${encodeURIComponent(userId)}/page?app=${encodeURIComponent(appInput.value.trim() || "default")}`));
    if (view) box.replaceChildren(...sections(ctx, view));
  };
  await draw();
  return [h("section", { "aria-labelledby": "page-summary-title" }, h("h2", { id: "page-summary-title" }, t("page.summary")), picker), box, await roomsSection(ctx, userId)];
}

function sections({ h, table }, view) {
  const logins = h("dl", { id: "player-logins" },
    h("dt", {}, t("page.lastLogin")),
    view.logins.length ? view.logins.map((l) => h("dd", {}, t("page.loginIn", { app: l.app, at: formatTime(l.at) }))) : h("dd", {}, t("page.noLogin")),
  );
  const out = [h("section", {}, logins)];
  if (!view.wallet) {
    out.push(h("section", {}, h("h2", {}, t("page.walletTitle")), h("p", {}, t("page.noEconomy"))));
  } else {
    out.push(h("section", { "aria-labelledby": "wallet-title" },
      h("h2", { id: "wallet-title" }, t("page.walletTitle")),
      h("div", { id: "player-wallet" },
        h("p", {}, t("page.apps", { apps: view.wallet.apps.length ? view.wallet.apps.join(", ") : t("page.none") })),
        table([{ title: t("page.currency"), cell: (r) => r[0] }, { title: t("page.balance"), cell: (r) => String(r[1]) }], Object.entries(view.wallet.balances), t("page.wallet")),
        table([{ title: t("page.item"), cell: (i) => i.itemId }, { title: t("page.count"), cell: (i) => String(i.count) }], view.wallet.items, t("page.inventory")),
      ),
      h("h2", { id: "ledger-title" }, t("page.ledgerTitle")),
      h("div", { id: "player-ledger" }, table([
        { title: t("page.at"), cell: (e) => formatTime(e.at) },
        { title: t("page.source"), cell: (e) => sourceText(e.source) },
        { title: t("page.change"), cell: (e) => (e.outcome === "refused" ? h("span", { className: "tag bad" }, t("page.refused", { reason: e.refusal ?? "" })) : changeText(e.currencies, e.items)) },
        { title: t("page.note"), cell: (e) => e.note ?? "" },
        { title: t("page.by"), cell: (e) => e.by ?? t("page.system") },
        { title: t("page.sourceId"), cell: (e) => e.sourceId },
      ], view.ledger ?? [], t("page.ledger"))),
    ));
  }
  if (view.mail) {
    out.push(h("section", { "aria-labelledby": "page-mail-title" }, h("h2", { id: "page-mail-title" }, t("page.mailTitle")), h("div", { id: "player-mail" }, table([
      { title: t("page.title"), cell: (m) => m.title },
      { title: t("page.attachments"), cell: (m) => changeText(m.attachments.currencies, m.attachments.items) },
      { title: t("page.sent"), cell: (m) => formatTime(m.createdAt) },
      { title: t("page.expires"), cell: (m) => formatTime(m.expiresAt) },
      { title: t("page.claimed"), cell: (m) => (m.claimedAt ? formatTime(m.claimedAt) : t("page.notClaimed")) },
    ], view.mail, t("page.mail")))));
  }
  if (view.records) {
    out.push(h("section", { "aria-labelledby": "page-records-title" }, h("h2", { id: "page-records-title" }, t("page.recordsTitle")), h("div", { id: "player-records" }, table([
      { title: t("page.board"), cell: (r) => r.board },
      { title: t("page.period"), cell: (r) => String(r.period) },
      { title: t("page.score"), cell: (r) => String(r.score) },
      { title: t("page.updated"), cell: (r) => formatTime(r.updatedAt) },
    ], view.records, t("page.records")))));
  }
  return out;
}

async function roomsSection({ api, h, table, load }, userId) {
  const section = h("section", { "aria-labelledby": "rooms-title" }, h("h2", { id: "rooms-title" }, t("page.rooms")));
  const found = await load(t("page.roomsLoad"), () => api("GET", `/players/${encodeURIComponent(userId)}/rooms`));
  if (!found) return section;
  section.append(h("div", { id: "player-rooms" },
    table(
      [
        { title: t("page.roomId"), cell: (r) => r.roomId },
        { title: t("page.type"), cell: (r) => r.roomType },
        { title: t("page.app"), cell: (r) => r.app ?? "" },
        { title: t("page.process"), cell: (r) => r.processId },
        { title: t("page.host"), cell: (r) => `${r.host} (pid ${r.pid})` },
        { title: t("page.seat"), cell: (r) => t(r.connected ? "page.connected" : "page.held") },
        { title: t("page.players"), cell: (r) => String(r.clients) },
      ],
      found.rooms,
      t("page.rooms"),
    ),
  ));
  if (found.unanswered) section.append(h("p", { className: "tag bad" }, t("page.unanswered", { count: found.unanswered })));
  return section;
}
