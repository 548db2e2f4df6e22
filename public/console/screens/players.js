// Players: find by user id, openid/unionid, username or email; profile, identities per app, live
// sessions and rooms; kick, disable with reason and end, enable, mute in rooms, export, erase with typed confirmation; the
// player's orders with refund and re-delivery, and coin grants.
const MUTE_DURATIONS = [[600, "10 minutes"], [3600, "1 hour"], [86400, "1 day"], [604800, "7 days"], [2592000, "30 days"]];

/** The platform part of an identity's namespace (`wechat`, `wechat@wx123` → `wechat`). */
const platformOf = (namespace) => namespace.split("@")[0];

export async function render(root, ctx) {
  const { api, h, table, attempt, load } = ctx;
  // Which platforms take coins and can refund them (the platform registry, through /apps).
  const platforms = (await load("Apps", () => api("GET", "/apps")))?.platforms ?? [];
  const coinPlatforms = platforms.filter((x) => x.coins).map((x) => x.name);
  const refunds = (platform) => platforms.some((x) => x.name === platform && x.refunds);
  const results = h("div", { id: "player-results" });
  const detail = h("div", { id: "player-detail" });
  const form = h(
    "form",
    { id: "player-search", role: "search", onsubmit: async (e) => {
      e.preventDefault();
      const q = new FormData(form).get("q");
      const found = await load("Search", () => api("GET", `/players?q=${encodeURIComponent(q)}`));
      if (!found) return;
      detail.replaceChildren();
      results.replaceChildren(
        table(
          [
            { title: "User id", cell: (p) => h("button", { type: "button", className: "link", onclick: () => show(p.user.id) }, p.user.id) },
            { title: "Username", cell: (p) => p.user.username },
            { title: "Nickname", cell: (p) => p.user.nickname ?? "" },
            { title: "Status", cell: (p) => statusTag(p) },
          ],
          found,
          "Players found",
        ),
      );
      if (found.length === 1) await show(found[0].user.id);
    } },
    h("label", {}, "Find a player (user id, openid, username, email, nickname, unionid of linked apps; platform:id)", h("input", { name: "q", id: "player-query", required: true, size: 48 })),
    h("button", { type: "submit" }, "Find"),
  );
  root.append(h("section", {}, h("h2", {}, "Players"), form, results), detail);
  form.querySelector("input").focus();

  function statusTag(p) {
    return p.restriction ? h("span", { className: "tag bad" }, `disabled: ${p.restriction.reason ?? ""}${p.restriction.until ? ` until ${p.restriction.until}` : ""}`) : h("span", { className: "tag" }, "active");
  }

  async function show(userId) {
    const p = await load("Load player", () => api("GET", `/players/${encodeURIComponent(userId)}`));
    if (!p) return;
    const path = `/players/${encodeURIComponent(userId)}`;
    const refresh = () => show(userId);
    const profile = h(
      "section",
      { "aria-labelledby": "profile-title" },
      h("h2", { id: "profile-title" }, `Player ${p.user.username}`),
      h("dl", { id: "player-profile" },
        h("dt", {}, "User id"), h("dd", {}, p.user.id),
        h("dt", {}, "Nickname"), h("dd", {}, p.user.nickname ?? "—"),
        h("dt", {}, "Email"), h("dd", {}, p.user.email),
        h("dt", {}, "Status"), h("dd", { id: "player-status" }, statusTag(p)),
        h("dt", {}, "Chat in rooms"), h("dd", { id: "player-mute" }, p.mute ? h("span", { className: "tag bad" }, `muted until ${p.mute.until}: ${p.mute.reason}`) : "allowed"),
        h("dt", {}, "Live sessions"), h("dd", { id: "player-sessions" }, p.sessionApps.length ? p.sessionApps.join(", ") : "none"),
        h("dt", {}, "Created"), h("dd", {}, p.user.createdAt),
      ),
      h("h2", {}, "Identities"),
      table([{ title: "Namespace", cell: (i) => i.platform }, { title: "App", cell: (i) => i.app ?? "studio-wide" }, { title: "Platform id", cell: (i) => i.platformId }], p.identities, "Identities"),
    );
    const disableForm = h(
      "form",
      { id: "disable-form", onsubmit: async (e) => {
        e.preventDefault();
        const data = new FormData(disableForm);
        const until = data.get("until") ? new Date(data.get("until")).toISOString() : null;
        if (await attempt("Disable", () => api("POST", `${path}/disable`, { reason: data.get("reason"), until }))) refresh();
      } },
      h("label", {}, "Reason", h("input", { name: "reason", id: "disable-reason", required: true, maxlength: 500 })),
      h("label", {}, "Until (empty: indefinitely)", h("input", { name: "until", id: "disable-until", type: "datetime-local" })),
      h("button", { type: "submit", className: "danger", id: "disable-submit" }, "Disable"),
    );
    const muteForm = h(
      "form",
      { id: "mute-form", onsubmit: async (e) => {
        e.preventDefault();
        const data = new FormData(muteForm);
        if (await attempt("Mute", () => api("POST", `${path}/mute`, { reason: data.get("reason"), durationSec: Number(data.get("durationSec")) }))) refresh();
      } },
      h("label", {}, "Mute reason", h("input", { name: "reason", id: "mute-reason", required: true, maxlength: 500 })),
      h("label", {}, "For", h("select", { name: "durationSec", id: "mute-duration" }, MUTE_DURATIONS.map(([sec, text]) => h("option", { value: sec }, text)))),
      h("button", { type: "submit", id: "mute-submit" }, "Mute in rooms"),
      h("button", { type: "button", id: "unmute", onclick: async () => (await attempt("Unmute", () => api("POST", `${path}/unmute`))) && refresh() }, "Unmute"),
    );
    const eraseForm = h(
      "form",
      { id: "erase-form", onsubmit: async (e) => {
        e.preventDefault();
        const confirm = new FormData(eraseForm).get("confirm");
        if (await attempt("Erase", () => api("POST", `${path}/erase`, { confirm }))) detail.replaceChildren(h("p", {}, "Erased."));
      } },
      h("label", {}, `Type the username (${p.user.username}) to erase for good`, h("input", { name: "confirm", id: "erase-confirm", required: true })),
      h("button", { type: "submit", className: "danger" }, "Erase"),
    );
    const actions = h(
      "section",
      {},
      h("h2", {}, "Actions"),
      h("form", { onsubmit: (e) => e.preventDefault() },
        h("button", { type: "button", id: "kick", onclick: async () => (await attempt("Kick", () => api("POST", `${path}/kick`))) && refresh() }, "Kick (end sessions)"),
        h("button", { type: "button", id: "enable", onclick: async () => (await attempt("Enable", () => api("POST", `${path}/enable`))) && refresh() }, "Enable"),
        h("button", { type: "button", id: "export", onclick: async () => {
          const record = await attempt("Export", () => api("GET", `${path}/export`));
          if (!record) return;
          const link = h("a", { href: URL.createObjectURL(new Blob([JSON.stringify(record, null, 2)], { type: "application/json" })), download: `player-${userId}.json` });
          link.click();
        } }, "Export"),
      ),
      disableForm,
      muteForm,
      eraseForm,
    );
    detail.replaceChildren(profile, await roomsSection(userId), actions, await ordersSection(userId, p));
    // The economy screen's wallet and inventory, where the economy is wired (its screen is listed).
    if (ctx.screens?.some((s) => s.id === "economy")) {
      const { walletSection } = await import("./economy.js");
      detail.append(await walletSection(ctx, userId, p.sessionApps[0] ?? "default"));
    }
  }

  async function roomsSection(userId) {
    const section = h("section", { "aria-labelledby": "rooms-title" }, h("h2", { id: "rooms-title" }, "Live rooms"));
    const found = await load("Rooms", () => api("GET", `/players/${encodeURIComponent(userId)}/rooms`));
    if (!found) return section;
    section.append(h("div", { id: "player-rooms" },
      table(
        [
          { title: "Room id", cell: (r) => r.roomId },
          { title: "Type", cell: (r) => r.roomType },
          { title: "App", cell: (r) => r.app ?? "" },
          { title: "Process", cell: (r) => r.processId },
          { title: "Host", cell: (r) => `${r.host} (pid ${r.pid})` },
          { title: "Seat", cell: (r) => (r.connected ? "connected" : "held for reconnection") },
          { title: "Players", cell: (r) => String(r.clients) },
        ],
        found.rooms,
        "Live rooms",
      ),
    ));
    if (found.unanswered) section.append(h("p", { className: "tag bad" }, `${found.unanswered} room(s) did not answer in time`));
    return section;
  }

  /** The coin platforms, the player's own first (the platform of the id they were found by, else of any identity). */
  function grantPlatforms(p) {
    const own = [...p.identities.filter((i) => i.platformId === p.user.openid), ...p.identities].map((i) => platformOf(i.platform)).filter((x) => coinPlatforms.includes(x));
    return [...new Set([...own, ...coinPlatforms])];
  }

  async function ordersSection(userId, p) {
    const path = `/players/${encodeURIComponent(userId)}`;
    const section = h("section", { "aria-labelledby": "orders-title" }, h("h2", { id: "orders-title" }, "Orders"));
    const list = h("div", { id: "player-orders" });
    const loadOrders = async (state) => {
      const query = new URLSearchParams();
      if (state) query.set("state", state);
      if (appFilter.value.trim()) query.set("app", appFilter.value.trim());
      const orders = await load("Orders", () => api("GET", `${path}/orders?${query}`));
      if (!orders) return;
      list.replaceChildren(
        table(
          [
            { title: "Order", cell: (o) => o.orderId },
            { title: "Kind", cell: (o) => o.kind },
            { title: "Item", cell: (o) => o.itemId },
            { title: "Coins", cell: (o) => String(o.coins) },
            { title: "State", cell: (o) => h("span", { className: "state" }, o.state) },
            { title: "Platform", cell: (o) => o.platform },
            { title: "Created", cell: (o) => o.createdAt },
            { title: "", cell: (o) => [
              o.kind === "coin_spend" && (o.state === "paid" || o.state === "delivered") && refunds(o.platform)
                ? h("button", { type: "button", "aria-label": `Refund ${o.orderId}`, onclick: async () => (await attempt(`Refund ${o.orderId}`, () => api("POST", `${path}/orders/${encodeURIComponent(o.orderId)}/refund`))) && loadOrders(filter.value) }, "Refund")
                : null,
              o.state === "paid" || (o.kind === "coin_grant" && o.state === "pending")
                ? h("button", { type: "button", "aria-label": `Re-run delivery of ${o.orderId}`, onclick: async () => (await attempt(`Delivery of ${o.orderId}`, () => api("POST", `${path}/orders/${encodeURIComponent(o.orderId)}/redeliver`))) && loadOrders(filter.value) }, "Re-run delivery")
                : null,
            ] },
          ],
          orders,
          "Orders",
        ),
      );
    };
    const appFilter = h("input", { id: "order-app", size: 10, placeholder: "any app", onchange: () => loadOrders(filter.value) });
    const filter = h("select", { id: "order-state", onchange: () => loadOrders(filter.value) }, ["", "pending", "paid", "delivered", "failed", "refunded"].map((s) => h("option", { value: s }, s || "any state")));
    const grantForm = h(
      "form",
      { id: "grant-form", onsubmit: async (e) => {
        e.preventDefault();
        const d = new FormData(grantForm);
        const body = { platform: d.get("platform"), app: d.get("app") || "default", coins: Number(d.get("coins")), grantId: d.get("grantId"), reason: d.get("reason") || "operator grant" };
        if (await attempt("Grant", () => api("POST", `${path}/grants`, body))) loadOrders(filter.value);
      } },
      h("label", {}, "Platform", h("select", { name: "platform", id: "grant-platform" }, grantPlatforms(p).map((x, i) => h("option", { value: x, selected: i === 0 }, x)))),
      h("label", {}, "App", h("input", { name: "app", id: "grant-app", value: p.sessionApps[0] ?? "default", size: 10 })),
      h("label", {}, "Coins", h("input", { name: "coins", id: "grant-coins", type: "number", min: 1, required: true, size: 6 })),
      h("label", {}, "Grant id (same id = same grant)", h("input", { name: "grantId", id: "grant-id", required: true, pattern: ctx.idPattern })),
      h("label", {}, "Reason", h("input", { name: "reason", id: "grant-reason", maxlength: 64 })),
      h("button", { type: "submit" }, "Grant coins"),
    );
    section.append(h("label", {}, "State", filter), h("label", {}, "App", appFilter), list, h("h2", {}, "Grant coins"), grantForm);
    await loadOrders("");
    return section;
  }
}
