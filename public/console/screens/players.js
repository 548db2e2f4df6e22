// Players: find by user id, openid/unionid, username or email; one page per player (#/players/<id>):
// profile, identities per app, live sessions, and player-page.js's last login, wallet and ledger,
// mail, leaderboard records and rooms; kick, disable with reason and end, enable, mute in rooms,
// export, erase with typed confirmation; the player's orders with refund and re-delivery, and coin
// grants. Refund, disable, erase and grants are confirmed first, naming the player and the amount;
// each result is shown beside its form or button.
import { formatTime, t } from "../i18n.js";
import "../texts/players.js";
import { playerPage } from "./player-page.js";

const MUTE_DURATIONS = [600, 3600, 86400, 604800, 2592000];

/** How a confirmation names a player: the nickname they go by, and the username. */
const nameOf = (user) => (user.nickname ? `${user.nickname} / ${user.username}` : user.username);

/** The platform part of an identity's namespace (`wechat`, `wechat@wx123` → `wechat`). */
const platformOf = (namespace) => namespace.split("@")[0];

export async function render(root, ctx) {
  const { api, h, table, attempt, load } = ctx;
  // Which platforms take coins and can refund them (the platform registry, through /apps).
  const platforms = (await load(t("players.appsLoad"), () => api("GET", "/apps")))?.platforms ?? [];
  const coinPlatforms = platforms.filter((x) => x.coins).map((x) => x.name);
  const refunds = (platform) => platforms.some((x) => x.name === platform && x.refunds);
  const results = h("div", { id: "player-results" });
  const detail = h("div", { id: "player-detail" });
  const form = h(
    "form",
    { id: "player-search", role: "search", onsubmit: async (e) => {
      e.preventDefault();
      const q = new FormData(form).get("q");
      const found = await load(t("players.search"), () => api("GET", `/players?q=${encodeURIComponent(q)}`));
      if (!found) return;
      detail.replaceChildren();
      results.replaceChildren(
        table(
          [
            { title: t("players.userId"), cell: (p) => h("button", { type: "button", className: "link", onclick: () => show(p.user.id) }, p.user.id) },
            { title: t("players.username"), cell: (p) => p.user.username },
            { title: t("players.nickname"), cell: (p) => p.user.nickname ?? "" },
            { title: t("players.status"), cell: (p) => statusTag(p) },
          ],
          found,
          t("players.found"),
        ),
      );
      if (found.length === 1) await show(found[0].user.id);
    } },
    h("label", {}, t("players.find"), h("input", { name: "q", id: "player-query", required: true, size: 48 })),
    h("button", { type: "submit", id: "player-find" }, t("players.findButton")),
  );
  root.append(h("section", {}, h("h2", {}, t("players.title")), form, results), detail);
  form.querySelector("input").focus();
  // Opened at a player's address (#/players/<id>: a link from the orders queue, a bookmark).
  if (ctx.params) await show(decodeURIComponent(ctx.params));

  function statusTag(p) {
    if (!p.restriction) return h("span", { className: "tag" }, t("players.active"));
    const reason = p.restriction.reason ?? "";
    return h("span", { className: "tag bad" }, p.restriction.until ? t("players.disabledUntil", { reason, until: formatTime(p.restriction.until) }) : t("players.disabledTag", { reason }));
  }

  async function show(userId) {
    const p = await load(t("players.load"), () => api("GET", `/players/${encodeURIComponent(userId)}`));
    if (!p) return;
    const path = `/players/${encodeURIComponent(userId)}`;
    const refresh = () => show(userId);
    const profile = h(
      "section",
      { "aria-labelledby": "profile-title" },
      h("h2", { id: "profile-title" }, t("players.player", { name: p.user.username })),
      h("dl", { id: "player-profile" },
        h("dt", {}, t("players.userId")), h("dd", {}, p.user.id),
        h("dt", {}, t("players.nickname")), h("dd", {}, p.user.nickname ?? "—"),
        h("dt", {}, t("players.email")), h("dd", {}, p.user.email ?? "—"),
        h("dt", {}, t("players.status")), h("dd", { id: "player-status" }, statusTag(p)),
        h("dt", {}, t("players.chat")), h("dd", { id: "player-mute" }, p.mute ? h("span", { className: "tag bad" }, t("players.mutedUntil", { until: formatTime(p.mute.until), reason: p.mute.reason })) : t("players.allowed")),
        h("dt", {}, t("players.sessions")), h("dd", { id: "player-sessions" }, p.sessionApps.length ? p.sessionApps.join(", ") : t("players.none")),
        h("dt", {}, t("players.created")), h("dd", { id: "player-created" }, h("time", { datetime: p.user.createdAt }, formatTime(p.user.createdAt))),
      ),
      h("h2", {}, t("players.identities")),
      table([{ title: t("players.namespace"), cell: (i) => i.platform }, { title: t("players.app"), cell: (i) => i.app ?? t("players.studioWide") }, { title: t("players.platformId"), cell: (i) => i.platformId }], p.identities, t("players.identities")),
    );
    const disableForm = h(
      "form",
      { id: "disable-form", onsubmit: async (e) => {
        e.preventDefault();
        const data = new FormData(disableForm);
        const until = data.get("until") ? new Date(data.get("until")).toISOString() : null;
        const confirm = t("players.confirmDisable", { name: nameOf(p.user), id: p.user.id, reason: data.get("reason"), until: until ? t("players.untilTime", { until: formatTime(until) }) : t("players.indefinitely") });
        if (await attempt(t("players.disable"), () => api("POST", `${path}/disable`, { reason: data.get("reason"), until }), { near: disableForm, confirm })) refresh();
      } },
      h("label", {}, t("players.reason"), h("input", { name: "reason", id: "disable-reason", required: true, maxlength: 500 })),
      h("label", {}, t("players.until"), h("input", { name: "until", id: "disable-until", type: "datetime-local" })),
      h("button", { type: "submit", className: "danger", id: "disable-submit" }, t("players.disable")),
    );
    const muteForm = h(
      "form",
      { id: "mute-form", onsubmit: async (e) => {
        e.preventDefault();
        const data = new FormData(muteForm);
        if (await attempt(t("players.muteWhat"), () => api("POST", `${path}/mute`, { reason: data.get("reason"), durationSec: Number(data.get("durationSec")) }), { near: muteForm })) refresh();
      } },
      h("label", {}, t("players.muteReason"), h("input", { name: "reason", id: "mute-reason", required: true, maxlength: 500 })),
      h("label", {}, t("players.for"), h("select", { name: "durationSec", id: "mute-duration" }, MUTE_DURATIONS.map((sec) => h("option", { value: sec }, t(`mute.${sec}`))))),
      h("button", { type: "submit", id: "mute-submit" }, t("players.mute")),
      h("button", { type: "button", id: "unmute", onclick: async (e) => (await attempt(t("players.unmuteWhat"), () => api("POST", `${path}/unmute`), { near: e.currentTarget })) && refresh() }, t("players.unmute")),
    );
    const eraseForm = h(
      "form",
      { id: "erase-form", onsubmit: async (e) => {
        e.preventDefault();
        const typed = new FormData(eraseForm).get("confirm");
        const confirm = t("players.confirmErase", { name: nameOf(p.user), id: p.user.id });
        if (await attempt(t("players.erase"), () => api("POST", `${path}/erase`, { confirm: typed }), { near: eraseForm, confirm })) detail.replaceChildren(h("p", { className: "result ok" }, t("players.erased")));
      } },
      h("label", {}, t("players.eraseLabel", { name: p.user.username }), h("input", { name: "confirm", id: "erase-confirm", required: true })),
      h("button", { type: "submit", className: "danger", id: "erase-submit" }, t("players.erase")),
    );
    const actions = h(
      "section",
      {},
      h("h2", {}, t("players.actions")),
      h("form", { onsubmit: (e) => e.preventDefault() },
        h("button", { type: "button", id: "kick", onclick: async (e) => (await attempt(t("players.kickWhat"), () => api("POST", `${path}/kick`), { near: e.currentTarget })) && refresh() }, t("players.kick")),
        h("button", { type: "button", id: "enable", onclick: async (e) => (await attempt(t("players.enable"), () => api("POST", `${path}/enable`), { near: e.currentTarget })) && refresh() }, t("players.enable")),
        h("button", { type: "button", id: "export", onclick: async (e) => {
          const record = await attempt(t("players.export"), () => api("GET", `${path}/export`), { near: e.currentTarget });
          if (!record) return;
          const link = h("a", { href: URL.createObjectURL(new Blob([JSON.stringify(record, null, 2)], { type: "application/json" })), download: `player-${userId}.json` });
          link.click();
        } }, t("players.export")),
      ),
      disableForm,
      muteForm,
      eraseForm,
    );
    // The player's own address (#/players/<id>), without redrawing the screen.
    history.replaceState(null, "", `#/players/${encodeURIComponent(userId)}`);
    detail.replaceChildren(profile, ...(await playerPage(ctx, userId, p.sessionApps[0] ?? "default")), actions, await ordersSection(userId, p));
  }

  /** The coin platforms, the player's own first (the platform of the id they were found by, else of any identity). */
  function grantPlatforms(p) {
    const own = [...p.identities.filter((i) => i.platformId === p.user.openid), ...p.identities].map((i) => platformOf(i.platform)).filter((x) => coinPlatforms.includes(x));
    return [...new Set([...own, ...coinPlatforms])];
  }

  async function ordersSection(userId, p) {
    const path = `/players/${encodeURIComponent(userId)}`;
    const section = h("section", { "aria-labelledby": "orders-title" }, h("h2", { id: "orders-title" }, t("players.orders")));
    const list = h("div", { id: "player-orders" });
    const loadOrders = async (state) => {
      const query = new URLSearchParams();
      if (state) query.set("state", state);
      if (appFilter.value.trim()) query.set("app", appFilter.value.trim());
      const orders = await load(t("players.ordersLoad"), () => api("GET", `${path}/orders?${query}`));
      if (!orders) return;
      list.replaceChildren(
        table(
          [
            { title: t("players.order"), cell: (o) => o.orderId },
            { title: t("players.kind"), cell: (o) => t(`kind.${o.kind}`) },
            { title: t("players.item"), cell: (o) => o.itemId },
            { title: t("players.coins"), cell: (o) => String(o.coins) },
            { title: t("players.state"), cell: (o) => h("span", { className: "state", "data-state": o.state }, t(`state.${o.state}`)) },
            { title: t("players.platform"), cell: (o) => o.platform },
            { title: t("players.orderCreated"), cell: (o) => formatTime(o.createdAt) },
            { title: "", cell: (o) => [
              o.kind === "coin_spend" && (o.state === "paid" || o.state === "delivered") && refunds(o.platform)
                ? h("button", { type: "button", "aria-label": t("players.refundOf", { order: o.orderId }), onclick: async (e) => {
                  const confirm = t("players.confirmRefund", { order: o.orderId, name: nameOf(p.user), coins: o.coins, platform: o.platform, item: o.itemId });
                  if (await attempt(t("players.refundOf", { order: o.orderId }), () => api("POST", `${path}/orders/${encodeURIComponent(o.orderId)}/refund`), { near: e.currentTarget, confirm })) await loadOrders(filter.value);
                } }, t("players.refund"))
                : null,
              o.state === "paid" || (o.kind === "coin_grant" && o.state === "pending")
                ? h("button", { type: "button", "aria-label": t("players.redeliverOf", { order: o.orderId }), onclick: async (e) => (await attempt(t("players.redeliverOf", { order: o.orderId }), () => api("POST", `${path}/orders/${encodeURIComponent(o.orderId)}/redeliver`), { near: e.currentTarget })) && loadOrders(filter.value) }, t("players.redeliver"))
                : null,
            ] },
          ],
          orders,
          t("players.orders"),
        ),
      );
    };
    const appFilter = h("input", { id: "order-app", size: 10, placeholder: t("players.anyApp"), onchange: () => loadOrders(filter.value) });
    const filter = h("select", { id: "order-state", onchange: () => loadOrders(filter.value) }, ["", "pending", "paid", "delivered", "failed", "refunded"].map((s) => h("option", { value: s }, s ? t(`state.${s}`) : t("players.anyState"))));
    const grantForm = h(
      "form",
      { id: "grant-form", onsubmit: async (e) => {
        e.preventDefault();
        const d = new FormData(grantForm);
        const body = { platform: d.get("platform"), app: d.get("app") || "default", coins: Number(d.get("coins")), grantId: d.get("grantId"), reason: d.get("reason") || "operator grant" };
        const confirm = t("players.confirmGrant", { coins: body.coins, name: nameOf(p.user), platform: body.platform, app: body.app, reason: body.reason });
        if (await attempt(t("players.grantWhat"), () => api("POST", `${path}/grants`, body), { near: grantForm, confirm })) loadOrders(filter.value);
      } },
      h("label", {}, t("players.platform"), h("select", { name: "platform", id: "grant-platform" }, grantPlatforms(p).map((x, i) => h("option", { value: x, selected: i === 0 }, x)))),
      h("label", {}, t("players.app"), h("input", { name: "app", id: "grant-app", value: p.sessionApps[0] ?? "default", size: 10 })),
      h("label", {}, t("players.coins"), h("input", { name: "coins", id: "grant-coins", type: "number", min: 1, required: true, size: 6 })),
      h("label", {}, t("players.grantId"), h("input", { name: "grantId", id: "grant-id", required: true, pattern: ctx.idPattern })),
      h("label", {}, t("players.reason"), h("input", { name: "reason", id: "grant-reason", maxlength: 64 })),
      h("button", { type: "submit", id: "grant-submit" }, t("players.grant")),
    );
    section.append(h("label", {}, t("players.state"), filter), h("label", {}, t("players.app"), appFilter), list, h("h2", {}, t("players.grantTitle")), grantForm);
    await loadOrders("");
    return section;
  }
}
