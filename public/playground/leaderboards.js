// The playground's Leaderboard panel (docs/leaderboards.md): a match in the `match` room whose
// result the server submits to `highscores`, and the board read back through the game client.
(function () {
  "use strict";

  const { $, setStatus, logEvent, events } = window.Playground;
  const state = { client: null };
  const BOARD = "highscores";

  async function refreshBoard() {
    const board = state.client.leaderboard(BOARD);
    const page = await board.top({ limit: 10 });
    const list = $("board");
    list.textContent = "";
    for (const record of page.records) {
      const item = document.createElement("li");
      item.dataset.userId = record.userId;
      item.textContent = "#" + record.rank + " " + record.name + " — " + record.score;
      list.appendChild(item);
    }
    try {
      const me = await board.me();
      $("board-me").textContent = "rank " + me.rank + ", score " + me.score;
      return "You are #" + me.rank + " with " + me.score;
    } catch (err) {
      if (err.code !== "no_record") throw err;
      $("board-me").textContent = "no record yet";
      return "No record yet: play a match";
    }
  }

  /** Joins a fresh match room, scores `hits` points, finishes it and waits for the results. */
  async function playMatch(hits) {
    const room = await state.client.create("match");
    const results = new Promise((resolve) => room.onMessage("results", resolve));
    room.onMessage("points", () => undefined);
    for (let i = 0; i < hits; i++) room.send("hit");
    room.send("finish");
    const outcome = await results;
    await room.leave();
    const mine = outcome.players.find((p) => p.userId === state.client.session.user.id);
    logEvent("match " + room.roomId + " finished: " + (mine ? mine.points : 0) + " points");
    return refreshBoard();
  }

  async function act(label, action) {
    const buttons = document.querySelectorAll("#leaderboard-panel button");
    buttons.forEach((b) => (b.disabled = true));
    setStatus($("board-status"), label + "…");
    try {
      setStatus($("board-status"), await action(), "ok");
    } catch (err) {
      setStatus($("board-status"), (err.code ? err.code + ": " : "") + err.message, "error");
    } finally {
      buttons.forEach((b) => (b.disabled = false));
    }
  }

  $("match-form").addEventListener("submit", (event) => {
    event.preventDefault();
    act("Playing a match", () => playMatch(Number($("match-hits").value)));
  });
  $("board-refresh").addEventListener("click", () => act("Reading the board", refreshBoard));

  events.addEventListener("login", (event) => {
    state.client = event.detail.client;
    $("leaderboard-panel").hidden = false;
    act("Reading the board", refreshBoard);
  });
  events.addEventListener("logout", () => {
    state.client = null;
    $("leaderboard-panel").hidden = true;
  });
})();
