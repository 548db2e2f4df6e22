// Apps and settings: ids and switches, never a secret.
export async function render(root, { api, h, table, attempt, load }) {
  const data = await load("Apps", () => api("GET", "/apps"));
  if (!data) return;
  root.append(
    h("section", {}, h("h2", {}, "Apps"),
      table(
        [{ title: "App", cell: (a) => a.key }, { title: "Platforms", cell: (a) => a.platforms.map((p) => `${p.platform} ${p.appId}${p.payments ? (p.refunds ? " (payments, refunds)" : " (payments, no refunds)") : ""}`).join(", ") }],
        data.apps,
        "Apps",
      )),
    h("section", {}, h("h2", {}, "Settings"), h("pre", { id: "settings" }, JSON.stringify(data.settings, null, 2))),
  );
}
