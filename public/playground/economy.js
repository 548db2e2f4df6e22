// The playground's Shop panel (docs/economy.md): the app's catalog with the server's prices, buying
// an item with coins or gems through client.buy (the catalog says which), the player's wallet and
// inventory, and every grant told to the lobby as a `reward` message (client event `reward`).
(function () {
  "use strict";

  const { $, setStatus, logEvent, events } = window.Playground;
  const state = { client: null };

  function describeError(err) {
    return (err.code ? (err.status ? err.status + " " : "") + err.code + ": " : "") + err.message;
  }

  const priceText = (prices) =>
    Object.entries(prices)
      .map(([currency, amount]) => amount + " " + currency)
      .join(" + ");

  async function refreshWallet() {
    const [balances, items] = await Promise.all([state.client.wallet(), state.client.inventory()]);
    $("wallet").textContent = JSON.stringify(balances);
    $("inventory").textContent = items.map((i) => i.itemId + " × " + i.count).join(", ") || "empty";
    $("wallet").dataset.balances = JSON.stringify(balances);
    return balances;
  }

  async function act(label, action) {
    const buttons = document.querySelectorAll("#shop-panel button");
    buttons.forEach((b) => (b.disabled = true));
    setStatus($("shop-status"), label + "…");
    try {
      setStatus($("shop-status"), await action(), "ok");
    } catch (err) {
      setStatus($("shop-status"), describeError(err), "error");
      logEvent(label + " failed: " + (err.code || err.message));
    } finally {
      buttons.forEach((b) => (b.disabled = false));
    }
  }

  function buyButton(item) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = "Buy";
    button.dataset.itemId = item.itemId;
    button.addEventListener("click", () =>
      act("Buying " + item.itemId, async () => {
        const result = await state.client.buy(item.itemId);
        const what = result.paidWith === "coins" ? "order " + result.order.orderId + " " + result.order.state : "paid " + priceText(result.purchase.paid);
        logEvent("bought " + item.itemId + " with " + result.paidWith + ": " + what);
        await refreshWallet();
        return "Bought " + item.itemId + " (" + what + ")";
      }),
    );
    return button;
  }

  async function showCatalog() {
    const catalog = await state.client.catalog();
    const rows = $("catalog");
    rows.replaceChildren();
    for (const item of catalog.items) {
      const row = document.createElement("tr");
      for (const text of [item.itemId, item.name, item.kind, priceText(item.prices)]) {
        const cell = document.createElement("td");
        cell.textContent = text;
        row.append(cell);
      }
      const cell = document.createElement("td");
      cell.append(buyButton(item));
      row.append(cell);
      rows.append(row);
    }
    $("catalog-version").textContent = "version " + catalog.version + ", ad units: " + catalog.ads.map((a) => a.adUnitId).join(", ");
    return catalog;
  }

  $("shop-refresh").addEventListener("click", () =>
    act("Reading the shop", async () => {
      await showCatalog();
      return "Wallet: " + JSON.stringify(await refreshWallet());
    }),
  );

  events.addEventListener("login", (event) => {
    state.client = event.detail.client;
    $("shop-panel").hidden = false;
    setStatus($("shop-status"), "");
    state.client.on("reward", (reward) => {
      logEvent("room: reward from " + reward.source + ", balances " + JSON.stringify(reward.balances));
      $("wallet").textContent = JSON.stringify(reward.balances);
    });
    act("Reading the shop", async () => {
      await showCatalog();
      return "Wallet: " + JSON.stringify(await refreshWallet());
    });
  });
  events.addEventListener("logout", () => {
    state.client = null;
    $("shop-panel").hidden = true;
  });
})();
