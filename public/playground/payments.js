// The playground's Payments panel (docs/payments.md): the player's coins, a coin spend, and an item
// bought through the platform's payment UI, which the embedded simulator plays
// (/playground/simulator/*, there only when the simulator runs inside the server).
(function () {
  "use strict";

  const { $, setStatus, logEvent, events } = window.Playground;
  const state = { client: null };

  /** A fresh id per purchase intent: the server never charges one twice (1–64 of A-Za-z0-9_-). */
  function freshId(prefix) {
    return prefix + Date.now().toString(36) + Math.random().toString(36).slice(2, 8);
  }

  function describeError(err) {
    const prefix = err.code ? (err.status ? err.status + " " : "") + err.code + ": " : "";
    const hint = err.code === "route_not_found" ? " (the simulator controls need the embedded simulator)" : "";
    return prefix + err.message + hint;
  }

  function showOrder(order, source) {
    $("order").textContent = JSON.stringify(order, null, 2);
    $("order-state").textContent = order.state + " (" + source + ")";
    $("order-state").dataset.orderId = order.orderId;
    $("order-state").dataset.state = order.state;
  }

  /** The simulator's controls for this player, with the page's token: answers the envelope's data. */
  async function simulatorControl(client, name, body) {
    const response = await fetch("/playground/simulator/" + name, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer " + client.session.token },
      body: JSON.stringify(body),
    });
    const envelope = await response.json().catch(() => ({ message: "HTTP " + response.status, data: {} }));
    if (!response.ok) throw Object.assign(new Error(envelope.message), { status: response.status, code: envelope.data && envelope.data.code });
    return envelope.data;
  }

  /**
   * The platform's payment UI for client.buyItem: here the player "pays" at once in the simulator,
   * which then pushes the purchase to the server under the outTradeNo the game chose.
   */
  window.Playground.paymentUi = async (client, options) => {
    const bought = await simulatorControl(client, "item-purchase", { itemId: options.itemId, price: options.price, outTradeNo: options.outTradeNo });
    logEvent("simulator: item " + options.itemId + " bought for " + options.price + " fen, trade " + bought.outTradeNo + "; waiting for the push");
  };

  /** Runs one panel action with its buttons disabled and its outcome in the status line. */
  async function act(label, action) {
    const buttons = document.querySelectorAll("#payments-panel button");
    buttons.forEach((b) => (b.disabled = true));
    setStatus($("payment-status"), label + "…");
    try {
      setStatus($("payment-status"), await action(), "ok");
    } catch (err) {
      setStatus($("payment-status"), describeError(err), "error");
      logEvent(label + " failed: " + (err.code || err.message));
    } finally {
      buttons.forEach((b) => (b.disabled = false));
    }
  }

  async function refreshBalance() {
    const coins = await state.client.balance();
    $("balance").textContent = String(coins);
    return coins;
  }

  $("balance-refresh").addEventListener("click", () => act("Reading the balance", async () => "Balance: " + (await refreshBalance())));

  $("topup-form").addEventListener("submit", (event) => {
    event.preventDefault();
    act("Topping up", async () => {
      const set = await simulatorControl(state.client, "coins", { balance: Number($("topup-balance").value) });
      logEvent("simulator: " + set.platform + " balance set to " + set.balance);
      return "Balance set; the server reads " + (await refreshBalance());
    });
  });

  $("spend-form").addEventListener("submit", (event) => {
    event.preventDefault();
    act("Buying with coins", async () => {
      // The server prices the order from the catalog: the page names the item and how many.
      const purchase = { orderId: freshId("pg"), itemId: $("spend-item").value.trim(), quantity: Number($("spend-quantity").value) };
      const order = await state.client.spendCoins(purchase);
      showOrder(order, "spendCoins");
      logEvent("order " + order.orderId + ": " + order.coins + " coins for " + order.itemId + ", " + order.state);
      return "Order " + order.orderId + " " + order.state + "; balance " + (await refreshBalance());
    });
  });

  $("item-form").addEventListener("submit", (event) => {
    event.preventDefault();
    act("Buying the item", async () => {
      const outTradeNo = freshId("pgitem");
      const order = await state.client.buyItem({
        outTradeNo,
        paymentOptions: { itemId: $("item-id").value.trim(), price: Number($("item-price").value) },
        timeoutMs: 30000,
      });
      showOrder(order, "waitForDelivery");
      logEvent("order " + order.orderId + ": item " + order.itemId + " " + order.state);
      return "Item " + order.itemId + " " + order.state + " (order " + order.orderId + ")";
    });
  });

  events.addEventListener("login", (event) => {
    state.client = event.detail.client;
    $("payments-panel").hidden = false;
    $("balance").textContent = "–";
    $("order").textContent = "–";
    $("order-state").textContent = "";
    setStatus($("payment-status"), "");
    // The balance right after login, not after a click on Refresh: it is the first thing a tester checks.
    act("Reading the balance", async () => "Balance: " + (await refreshBalance()));
  });
  events.addEventListener("logout", () => {
    state.client = null;
    $("payments-panel").hidden = true;
  });
  events.addEventListener("room", (event) => {
    // The server tells the player's rooms about every delivered order, however it was bought.
    event.detail.room.onMessage("purchase", (order) => {
      logEvent("room: purchase message, order " + order.orderId + " " + order.state);
      showOrder(order, "room purchase message");
    });
  });
})();
