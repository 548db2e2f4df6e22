// Health: processes, rooms and players per room type and process, login and error counts, order
// states, the reconciler's last sweeps.
export async function render(root, { api, h, table, attempt, load }) {
  const health = await load("Health", () => api("GET", "/health"));
  if (!health) return;
  const p = health.thisProcess;
  root.append(
    h("section", {}, h("h2", {}, "This process"),
      h("dl", { id: "this-process" }, ...Object.entries(p).flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, String(v))]))),
    h("section", {}, h("h2", {}, "Processes"),
      table([{ title: "Process", cell: (x) => x.processId }, { title: "Rooms", cell: (x) => String(x.rooms) }, { title: "Players", cell: (x) => String(x.players) }], health.processes, "Processes")),
    h("section", {}, h("h2", {}, "Rooms"),
      table([{ title: "Room type", cell: (x) => x.name }, { title: "Process", cell: (x) => x.processId }, { title: "Rooms", cell: (x) => String(x.rooms) }, { title: "Players", cell: (x) => String(x.players) }], health.rooms, "Rooms")),
    h("section", {}, h("h2", {}, "Logins and errors (this process, since start)"),
      h("dl", { id: "rates" },
        h("dt", {}, "Logins ok"), h("dd", {}, `${health.logins.ok} (${health.logins.okPerMinute}/min)`),
        h("dt", {}, "Logins failed"), h("dd", {}, `${health.logins.failed} (${health.logins.failedPerMinute}/min)`),
        h("dt", {}, "HTTP requests"), h("dd", {}, String(health.requests.total)),
        h("dt", {}, "HTTP 4xx"), h("dd", {}, String(health.requests.clientErrors)),
        h("dt", {}, "HTTP 5xx"), h("dd", {}, `${health.requests.serverErrors} (${health.requests.serverErrorsPerMinute}/min)`))),
    h("section", {}, h("h2", {}, "Orders by state"),
      table([{ title: "Platform", cell: (x) => x.platform }, { title: "Kind", cell: (x) => x.kind }, { title: "State", cell: (x) => x.state }, { title: "Count", cell: (x) => String(x.count) }], health.orders, "Orders by state")),
    h("section", {}, h("h2", {}, "Reconciler sweeps (this process)"),
      table([{ title: "Started", cell: (x) => x.startedAt }, { title: "Finished", cell: (x) => x.finishedAt }, { title: "Outcome", cell: (x) => (x.ok ? "ok" : "failed") }], health.reconcilerRuns, "Reconciler sweeps")),
  );
}
