// Orders across the apps that the reconciler is still waiting on (unsettled), oldest first.
export async function render(root, { api, h, table, attempt, load }) {
  const orders = (await load("Unsettled orders", () => api("GET", "/orders/unsettled"))) ?? [];
  root.append(
    h("section", {}, h("h2", {}, "Orders the reconciler is waiting on"),
      table(
        [
          { title: "User id", cell: (o) => o.userId },
          { title: "Order", cell: (o) => o.orderId },
          { title: "Kind", cell: (o) => o.kind },
          { title: "State", cell: (o) => o.state },
          { title: "Coins", cell: (o) => String(o.coins) },
          { title: "Platform / app", cell: (o) => `${o.platform} ${o.appId}` },
          { title: "Attempts", cell: (o) => String(o.attempts) },
          { title: "Updated", cell: (o) => o.updatedAt },
        ],
        orders,
        "Unsettled orders",
      ),
      h("p", {}, "A player's own orders, with refunds and grants, are on the Players screen."),
    ),
  );
}
