// Leaderboards: an app's boards, a player's records; an admin removes a record, bans the player
// from a board (which removes their current record too), lifts a ban, or resets a board (its period
// ends now and the next starts).
export async function render(root, { api, h, table, attempt, load, operator }) {
  const appInput = h("input", { id: "boards-app", value: "default", size: 10 });
  const boards = h("div", { id: "board-list" });
  const records = h("div", { id: "board-records" });
  const app = () => appInput.value || "default";
  const unbanBoard = h("select", { name: "boardId", id: "unban-board" });
  const loadBoards = async () => {
    const b = await load("Boards", () => api("GET", `/leaderboards?app=${encodeURIComponent(app())}`));
    if (!b) return;
    unbanBoard.replaceChildren(...b.boards.map((x) => h("option", { value: x.id }, x.id)));
    boards.replaceChildren(table([
      { title: "Board", cell: (x) => x.id },
      { title: "Period", cell: (x) => (x.period ? `#${x.period.seq ?? ""} ${x.period.endsAt ?? ""}` : "—") },
      { title: "Records", cell: (x) => String(x.records) },
      { title: "", cell: (x) => operator.role === "admin"
        ? h("button", { type: "button", className: "danger", "aria-label": `Reset ${x.id}`, onclick: async () => {
          if (!window.confirm(`Reset ${x.id}: end its current period now and start the next?`)) return;
          if (await attempt(`reset ${x.id}`, () => api("POST", `/leaderboards/${encodeURIComponent(x.id)}/reset`, { app: app() }))) await loadBoards();
        } }, "Reset")
        : null },
    ], b.boards, "Boards"));
  };
  const loadRecords = async (userId) => {
    const r = await load("Records", () => api("GET", `/leaderboards/players/${encodeURIComponent(userId)}?app=${encodeURIComponent(app())}`));
    if (!r) return;
    const change = (what, rec) => async () => {
      const done = await attempt(`${what} ${rec.board}`, () => api("POST", `/leaderboards/${encodeURIComponent(rec.board)}/players/${encodeURIComponent(userId)}/${what}`, { app: app() }));
      if (done) { await loadRecords(userId); await loadBoards(); }
    };
    records.replaceChildren(table([
      { title: "Board", cell: (x) => x.board },
      { title: "Period", cell: (x) => String(x.period) },
      { title: "Score", cell: (x) => String(x.score) },
      { title: "Name", cell: (x) => x.name },
      { title: "Updated", cell: (x) => x.updatedAt },
      { title: "", cell: (x) => operator.role === "admin" ? [
        h("button", { type: "button", "aria-label": `Remove record on ${x.board}`, onclick: change("remove", x) }, "Remove"),
        h("button", { type: "button", className: "danger", "aria-label": `Ban from ${x.board}`, onclick: change("ban", x) }, "Ban"),
      ] : null },
    ], r.records, "Player's records"));
  };
  const playerForm = h(
    "form",
    { id: "board-player", onsubmit: (e) => { e.preventDefault(); loadRecords(new FormData(playerForm).get("userId")); } },
    h("label", {}, "Player's user id", h("input", { name: "userId", id: "board-user", required: true, size: 38 })),
    h("button", { type: "submit" }, "Show records"),
  );
  const unbanForm = h(
    "form",
    { id: "unban-form", onsubmit: async (e) => {
      e.preventDefault();
      const userId = new FormData(playerForm).get("userId");
      if (!userId) return playerForm.reportValidity();
      const path = `/leaderboards/${encodeURIComponent(unbanBoard.value)}/players/${encodeURIComponent(userId)}/unban`;
      if (await attempt(`unban ${unbanBoard.value}`, () => api("POST", path, { app: app() }))) await loadRecords(userId);
    } },
    h("label", {}, "Lift the player's ban from", unbanBoard),
    h("button", { type: "submit", id: "unban-submit" }, "Unban"),
  );
  root.append(
    h("section", {}, h("h2", {}, "Boards"), h("form", { onsubmit: (e) => { e.preventDefault(); loadBoards(); } }, h("label", {}, "App", appInput), h("button", { type: "submit" }, "Show boards")), boards),
    h("section", {}, h("h2", {}, "A player's records"), playerForm, records, operator.role === "admin" ? unbanForm : null),
  );
  await loadBoards();
}
