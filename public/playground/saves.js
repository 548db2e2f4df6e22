// The playground's Cloud saves panel (docs/saves.md): a small game state saved with the version last
// read and reloaded through the game client; a save made elsewhere in between is a conflict to reload.
(function () {
  "use strict";

  const { $, setStatus } = window.Playground;
  const state = { client: null, version: undefined };
  const COLLECTION = "playground";
  const KEY = "state";

  function show(version) {
    state.version = version;
    $("save-version").textContent = version === undefined ? "–" : String(version);
  }

  async function reload() {
    try {
      const saved = await state.client.saves.get(COLLECTION, KEY);
      $("save-state").value = JSON.stringify(saved.value);
      show(saved.version);
      return "Reloaded version " + saved.version;
    } catch (err) {
      if (err.code !== "save_not_found") throw err;
      show(undefined);
      return "Nothing saved yet";
    }
  }

  async function save() {
    const value = JSON.parse($("save-state").value);
    const written = await state.client.saves.put(COLLECTION, KEY, value, state.version === undefined ? {} : { version: state.version });
    show(written.version);
    return "Saved version " + written.version;
  }

  async function act(label, action) {
    setStatus($("save-status"), label + "…");
    try {
      setStatus($("save-status"), await action(), "ok");
    } catch (err) {
      const now = err.code === "version_conflict" ? " (version now " + err.current + "): reload, then save again" : "";
      setStatus($("save-status"), (err.code ? err.code + ": " : "") + err.message + now, "error");
    }
  }

  $("save-put").addEventListener("click", () => act("Saving", save));
  $("save-get").addEventListener("click", () => act("Reloading", reload));

  window.Playground.events.addEventListener("login", (event) => {
    state.client = event.detail.client;
    $("saves-panel").hidden = false;
    act("Reloading", reload);
  });
  window.Playground.events.addEventListener("logout", () => {
    state.client = null;
    show(undefined);
    $("saves-panel").hidden = true;
  });
})();
