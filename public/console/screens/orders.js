// Orders: the queue of paid orders that need a person, most recently changed first: deliveries that
// keep failing, coin spends the platform has not confirmed, and pushed purchases the catalog refused,
// each with its reason. From a row: retry the delivery, refund (admin; only where the platform has a
// refund: never on Douyin), or record a refused push as refunded on the platform (admin). A refund,
// a record and a refused push's delivery are confirmed first, naming the player, order and amount;
// each result is shown beside the queue, which is then read again.
import { addTexts, formatTime, t } from "../i18n.js";

addTexts({
  en: {
    "orders.title": "Paid orders that need a person", "orders.load": "Order queue", "orders.player": "Player", "orders.order": "Order",
    "orders.kind": "Kind", "orders.item": "Item", "orders.state": "State", "orders.coins": "Coins / price", "orders.platform": "Platform / app",
    "orders.reason": "Why", "orders.changed": "Last change", "orders.queue": "Orders that need a person",
    "orders.hint": "A player's own orders, with refunds and coin grants, are on their page (Players). Refused pushes: refund them on the platform's merchant console, then record it here.",
    "reason.delivery_failing": "delivery failed ({attempts} attempts); retried by the reconciler", "reason.delivery_waiting": "paid, delivery not run yet",
    "reason.outcome_unknown": "the platform has not confirmed the deduction: asked again at the player's next login (after a day, check with the platform)",
    "reason.grant_unconfirmed": "coin grant sent, not confirmed", "reason.push_refused": "push refused by the catalog: {failure}",
    "failure.item_not_found": "the item is not in the catalog", "failure.price_below_catalog": "paid less than the catalog's price",
    "orders.retry": "Retry", "orders.retryOf": "Retry of order {order}", "orders.refund": "Refund", "orders.refundOf": "Refund of order {order}",
    "orders.record": "Record refunded", "orders.recordOf": "Record of order {order} as refunded", "orders.stillState": "the order is still {state}",
    "orders.confirmRefund": "Refund order {order} of player {name}: {coins} coins back to their {platform} balance, for item {item}? This cannot be undone.",
    "orders.confirmRecord": "Record that order {order} of player {name} (item {item}, price {coins}) was refunded on {platform}'s merchant console? Nothing is refunded from here; the order leaves the queue and is never delivered.",
    "kind.item_purchase": "item purchase",
    "orders.confirmPush": "Deliver item {item} to player {name} for order {order} although the push was refused ({failure})? Only once the catalog lists the item at this price.",
  },
  "zh-CN": {
    "orders.title": "需要人工处理的付费订单", "orders.load": "订单队列", "orders.player": "玩家", "orders.order": "订单号",
    "orders.kind": "类型", "orders.item": "物品", "orders.state": "状态", "orders.coins": "游戏币 / 价格", "orders.platform": "平台 / 应用",
    "orders.reason": "原因", "orders.changed": "最近变更", "orders.queue": "需要人工处理的订单",
    "orders.hint": "玩家自己的订单（含退款和发放游戏币）请到其玩家主页（“玩家”）查看。被拒绝的推送：请在平台商户后台退款后，在此登记。",
    "reason.delivery_failing": "发货失败（已尝试 {attempts} 次），对账程序会继续重试", "reason.delivery_waiting": "已支付，尚未发货",
    "reason.outcome_unknown": "平台尚未确认扣款：玩家下次登录时会再次查询（超过一天请向平台核实）",
    "reason.grant_unconfirmed": "游戏币发放已发出，尚未确认", "reason.push_refused": "推送被商品目录拒绝：{failure}",
    "failure.item_not_found": "商品目录中没有该物品", "failure.price_below_catalog": "支付金额低于目录价格",
    "orders.retry": "重试", "orders.retryOf": "重试订单 {order}", "orders.refund": "退款", "orders.refundOf": "退款订单 {order}",
    "orders.record": "登记已退款", "orders.recordOf": "登记订单 {order} 已退款", "orders.stillState": "订单仍为{state}",
    "orders.confirmRefund": "确定为玩家 {name} 的订单 {order}（物品 {item}）退款？{coins} 游戏币将退回其 {platform} 余额，且无法撤销。",
    "orders.confirmRecord": "确定登记玩家 {name} 的订单 {order}（物品 {item}，价格 {coins}）已在 {platform} 商户后台退款？此处不会退款；订单将移出队列且不再发货。",
    "kind.item_purchase": "道具直购",
    "orders.confirmPush": "确定为订单 {order} 向玩家 {name} 发放物品 {item}（推送曾被拒绝：{failure}）？仅在商品目录已按此价格上架该物品时可行。",
  },
});

const nameOf = (e) => (e.player ? (e.player.nickname ? `${e.player.nickname} / ${e.player.username}` : e.player.username) : e.order.userId);
const failureText = (code) => (t(`failure.${code}`) === `failure.${code}` ? code ?? "" : t(`failure.${code}`));

export async function render(root, { api, h, table, attempt, load, operator }) {
  const list = h("div", { id: "order-queue" });
  const admin = operator.role === "admin";
  const draw = async () => {
    const entries = await load(t("orders.load"), () => api("GET", "/orders/queue"));
    if (!entries) return;
    list.replaceChildren(table(
      [
        { title: t("orders.changed"), cell: (e) => formatTime(e.order.updatedAt) },
        { title: t("orders.player"), cell: (e) => h("a", { href: `#/players/${encodeURIComponent(e.order.userId)}` }, nameOf(e)) },
        { title: t("orders.order"), cell: (e) => e.order.orderId },
        { title: t("orders.kind"), cell: (e) => t(`kind.${e.order.kind}`) },
        { title: t("orders.item"), cell: (e) => e.order.itemId },
        { title: t("orders.coins"), cell: (e) => String(e.order.coins) },
        { title: t("orders.platform"), cell: (e) => `${e.order.platform} ${e.order.appId}` },
        { title: t("orders.state"), cell: (e) => h("span", { className: "state", "data-state": e.order.state }, t(`state.${e.order.state}`)) },
        { title: t("orders.reason"), cell: (e) => h("span", { className: "reason", "data-reason": e.reason }, t(`reason.${e.reason}`, { attempts: e.order.attempts, failure: failureText(e.order.failure) })) },
        { title: "", cell: (e) => actions(e) },
      ],
      entries,
      t("orders.queue"),
    ));
  };

  function actions(e) {
    const o = e.order;
    const path = (action) => `/orders/queue/${encodeURIComponent(o.userId)}/${encodeURIComponent(o.id)}/${action}`;
    const facts = { order: o.orderId, name: nameOf(e), coins: o.coins, platform: o.platform, item: o.itemId, failure: failureText(o.failure) };
    const button = (label, what, run, confirm) =>
      h("button", { type: "button", "aria-label": what, onclick: async (ev) => {
        if (await attempt(what, run, { near: ev.currentTarget, confirm })) await draw();
      } }, label);
    return [
      e.actions.includes("retry")
        ? button(t("orders.retry"), t("orders.retryOf", { order: o.orderId }), async () => {
          const after = await api("POST", path("retry"));
          if (after.state !== "delivered") throw new Error(t("orders.stillState", { state: t(`state.${after.state}`) }));
          return after;
        }, e.reason === "push_refused" ? t("orders.confirmPush", facts) : undefined)
        : null,
      admin && e.actions.includes("refund") ? button(t("orders.refund"), t("orders.refundOf", { order: o.orderId }), () => api("POST", path("refund")), t("orders.confirmRefund", facts)) : null,
      admin && e.actions.includes("record_refund") ? button(t("orders.record"), t("orders.recordOf", { order: o.orderId }), () => api("POST", path("record-refund")), t("orders.confirmRecord", facts)) : null,
    ];
  }

  root.append(h("section", {}, h("h2", {}, t("orders.title")), h("p", {}, t("orders.hint")), list));
  await draw();
}
