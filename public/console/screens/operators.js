// Operators: roles, disable and enable. Accounts are created and reset with
// `npm run admin -- operator add|reset`, which hands out the one-time password.
export async function render(root, { api, h, table, attempt, load, operator }) {
  const list = h("div", { id: "operator-list" });
  const refresh = async () => {
    const operators = await load("Operators", () => api("GET", "/operators"));
    if (!operators) return;
    list.replaceChildren(
      table(
        [
          { title: "Name", cell: (o) => o.name },
          { title: "Role", cell: (o) => h("select", { "aria-label": `Role of ${o.name}`, onchange: async (e) => (await attempt("Role", () => api("POST", `/operators/${encodeURIComponent(o.name)}/role`, { role: e.target.value }))) && refresh() },
            ["viewer", "support", "admin"].map((r) => h("option", { value: r, selected: r === o.role }, r))) },
          { title: "Second factor", cell: (o) => (o.totp ? "TOTP" : "none") },
          { title: "State", cell: (o) => (o.disabled ? "disabled" : o.mustChangePassword ? "waiting for first sign-in" : "active") },
          { title: "Sessions", cell: (o) => h("button", { type: "button", "aria-label": `End the sessions of ${o.name}`, onclick: async () => (await attempt("End sessions", () => api("POST", `/operators/${encodeURIComponent(o.name)}/end-sessions`))) && refresh() }, "End sessions") },
          { title: "", cell: (o) => o.name === operator.name ? "you" : h("button", { type: "button", onclick: async () => (await attempt(o.disabled ? "Enable" : "Disable", () => api("POST", `/operators/${encodeURIComponent(o.name)}/${o.disabled ? "enable" : "disable"}`))) && refresh() }, o.disabled ? "Enable" : "Disable") },
        ],
        operators,
        "Operators",
      ),
    );
  };
  root.append(h("section", {}, h("h2", {}, "Operators"), h("p", {}, "New operators and password resets: npm run admin -- operator add <name> --role <viewer|support|admin>, operator reset <name>."), list));
  await refresh();
}
