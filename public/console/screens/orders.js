// Orders across the apps that the reconciler is still waiting on (unsettled), oldest first.
import { addTexts, formatTime, t } from "../i18n.js";

addTexts({
  en: {
    "orders.title": "Orders the reconciler is waiting on", "orders.load": "Unsettled orders", "orders.user": "User id", "orders.order": "Order",
    "orders.kind": "Kind", "orders.state": "State", "orders.coins": "Coins", "orders.platform": "Platform / app", "orders.attempts": "Attempts",
    "orders.updated": "Updated", "orders.hint": "A player's own orders, with refunds and grants, are on the Players screen.",
  },
  "zh-CN": {
    "orders.title": "等待对账的订单", "orders.load": "未结订单", "orders.user": "用户 ID", "orders.order": "订单号",
    "orders.kind": "类型", "orders.state": "状态", "orders.coins": "游戏币", "orders.platform": "平台 / 应用", "orders.attempts": "重试次数",
    "orders.updated": "更新时间", "orders.hint": "玩家自己的订单（含退款和发放）请到“玩家”页面查看。",
  },
});

export async function render(root, { api, h, table, load }) {
  const orders = (await load(t("orders.load"), () => api("GET", "/orders/unsettled"))) ?? [];
  root.append(
    h("section", {}, h("h2", {}, t("orders.title")),
      table(
        [
          { title: t("orders.user"), cell: (o) => o.userId },
          { title: t("orders.order"), cell: (o) => o.orderId },
          { title: t("orders.kind"), cell: (o) => t(`kind.${o.kind}`) },
          { title: t("orders.state"), cell: (o) => t(`state.${o.state}`) },
          { title: t("orders.coins"), cell: (o) => String(o.coins) },
          { title: t("orders.platform"), cell: (o) => `${o.platform} ${o.appId}` },
          { title: t("orders.attempts"), cell: (o) => String(o.attempts) },
          { title: t("orders.updated"), cell: (o) => formatTime(o.updatedAt) },
        ],
        orders,
        t("orders.load"),
      ),
      h("p", {}, t("orders.hint")),
    ),
  );
}
