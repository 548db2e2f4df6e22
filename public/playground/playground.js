// The playground's page script: plain browser JS, no build step. It logs in, joins and chats
// through this repository's game client (client/, served at /vendor/minigame-client.js) in its
// browser mode, so what it shows is what a game gets. The Payments panel is payments.js, which
// builds on what this script shares as `window.Playground`.
(function () {
  "use strict";

  const $ = (id) => document.getElementById(id);
  const Minigame = window.MinigameClient;
  const state = { client: null, room: null };
  /** "login" {client}, "room" {room}, "logout": what payments.js follows. */
  const events = new EventTarget();
  const emit = (type, detail) => events.dispatchEvent(new CustomEvent(type, { detail }));

  /**
   * One game client per login: the web runtime is told which platform's route the codes are for and
   * which game (the platform's app id) they log in to, as a mini-game's runtime would report it.
   */
  function createClient(platform, appId) {
    // In memory: a reload starts logged out, so the page always shows a full login.
    const runtime = Minigame.webRuntime({ platform, appId: appId || undefined, storage: Minigame.memoryStorage() });
    // A browser has no platform payment UI: payments.js plays one with the simulator (client.buyItem opens it).
    runtime.requestPayment = (options) =>
      window.Playground.paymentUi ? window.Playground.paymentUi(client, options) : Promise.reject(new Error("no payment UI in this page"));
    const client = Minigame.createGameClient({ server: window.location.origin, runtime });
    client.on("sessionEnded", (event) => {
      logEvent("session ended by the server (" + event.code + ")");
      setStatus($("login-status"), "Session ended: log in again", "error");
      emit("logout");
      refreshControls();
    });
    client.on("reconnecting", (event) => logEvent("connection lost (close code " + event.code + "): reconnecting, attempt " + event.attempt));
    client.on("reconnected", (event) => logEvent("reconnected to the same seat after " + event.offlineMs + " ms"));
    client.on("reconnectFailed", (event) => logEvent("could not reconnect: " + event.reason));
    return client;
  }

  function loggedIn() {
    return state.client !== null && state.client.isLoggedIn;
  }

  function setStatus(element, text, kind) {
    element.textContent = text;
    element.className = "status" + (kind ? " " + kind : "");
  }

  function logEvent(text) {
    const item = document.createElement("li");
    item.textContent = new Date().toLocaleTimeString() + "  " + text;
    $("events").prepend(item);
  }

  /** JWT payloads are base64url JSON; decoding needs no secret (verifying would). */
  function decodeJwtPayload(token) {
    const part = token.split(".")[1] || "";
    const base64 = part.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(part.length / 4) * 4, "=");
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    return JSON.parse(new TextDecoder().decode(bytes));
  }

  function describeClaims(claims) {
    const shown = Object.assign({}, claims);
    for (const key of ["iat", "exp", "authTime"]) {
      if (typeof claims[key] === "number") shown[key] = claims[key] + "  (" + new Date(claims[key] * 1000).toLocaleString() + ")";
    }
    return JSON.stringify(shown, null, 2);
  }

  /** A fresh simulator-style code: the player part stays, the use number goes up. */
  function nextCode(code) {
    const match = /^(.*)\.(\d+)$/.exec(code);
    return match ? match[1] + "." + (Number(match[2]) + 1) : code + ".2";
  }

  function refreshControls() {
    const joined = state.room !== null;
    $("join").disabled = !loggedIn() || joined;
    $("logout").disabled = !loggedIn();
    $("chat-text").disabled = !joined;
    $("send").disabled = !joined;
  }

  /** The server's enabled platforms: name, display name and the login's code parameters. */
  const platforms = {};

  function showCodeKinds() {
    const platform = platforms[$("platform").value] || {};
    const params = platform.codeParams || [];
    $("code-kind").replaceChildren(...params.map((p) => new Option(p, p)));
    $("code-kind-label").hidden = params.length < 2;
    // The studio's games on this platform (APPS_FILE); the default app is sent without an app id.
    const apps = platform.apps || [];
    $("app").replaceChildren(...apps.map((a) => new Option(a.key + " (" + a.appId + ")", a.key === "default" ? "" : a.appId)));
    $("app-label").hidden = apps.length < 2;
  }

  async function loadPlatforms() {
    const list = await (await fetch("/playground/platforms.json")).json();
    for (const p of list) {
      platforms[p.name] = p;
      $("platform").append(new Option(p.displayName, p.name));
    }
    showCodeKinds();
  }

  $("platform").addEventListener("change", showCodeKinds);
  loadPlatforms().catch((err) => setStatus($("login-status"), "Could not load the platform list: " + err.message, "error"));

  $("login-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const platform = $("platform").value;
    // The server's parameter names; the client knows each platform's, so it needs only the kind of code.
    const anonymous = $("code-kind").value === "anonymous_code";
    const code = $("code").value.trim();
    setStatus($("login-status"), "Logging in…");
    const client = createClient(platform, $("app").value);
    try {
      const user = await client.login({ codes: anonymous ? { anonymousCode: code } : { code } });
      state.client = client;
      $("user").textContent = JSON.stringify(user, null, 2);
      $("claims").textContent = describeClaims(decodeJwtPayload(client.session.token));
      setStatus($("login-status"), "Logged in as " + user.username, "ok");
      logEvent("logged in on " + platform + (client.appId ? " (app " + client.appId + ")" : "") + " as " + user.username);
      $("code").value = nextCode(code);
      emit("login", { client });
    } catch (err) {
      // ApiError: the HTTP status and the server's stable data.code.
      const prefix = err.code ? (err.status ? err.status + " " : "") + err.code + ": " : "Login failed: ";
      setStatus($("login-status"), prefix + err.message, "error");
    }
    refreshControls();
  });

  function renderPlayers(players) {
    const list = $("players");
    list.replaceChildren();
    players.forEach((player, sessionId) => {
      const item = document.createElement("li");
      item.textContent = player.name + "  (" + player.userId.slice(0, 8) + "…, since " + new Date(player.joinedAt).toLocaleTimeString() + ")";
      item.dataset.sessionId = sessionId;
      item.dataset.userId = player.userId;
      list.append(item);
    });
  }

  function addChatLine(message) {
    const item = document.createElement("li");
    item.textContent = message.name + ": " + message.text;
    $("chat").append(item);
    item.scrollIntoView({ block: "nearest" });
  }

  $("join").addEventListener("click", async () => {
    setStatus($("room-status"), "Joining…");
    $("join").disabled = true;
    try {
      const room = await state.client.joinOrCreate("lobby");
      state.room = room;
      setStatus($("room-status"), "Connected to lobby " + room.roomId + " as session " + room.sessionId, "ok");
      logEvent("joined lobby " + room.roomId);
      room.onStateChange((roomState) => renderPlayers(roomState.players));
      room.onMessage("chat", addChatLine);
      room.onMessage("error", (problem) => logEvent("room refused a message: " + problem.code));
      emit("room", { room });
      room.onLeave((code) => {
        state.room = null;
        const byServer = code >= 4000;
        setStatus(
          $("room-status"),
          (byServer ? "Disconnected by the server" : "Disconnected") + " (close code " + code + ")",
          byServer ? "error" : "",
        );
        logEvent("room connection closed with code " + code);
        $("players").replaceChildren();
        refreshControls();
      });
    } catch (err) {
      setStatus($("room-status"), "Could not join: " + (err.code ? err.code + " " : "") + err.message, "error");
    }
    refreshControls();
  });

  $("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("chat-text").value.trim();
    if (!text || !state.room) return;
    state.room.send("chat", { text });
    $("chat-text").value = "";
  });

  $("logout").addEventListener("click", async () => {
    const confirmed = await state.client.logout();
    logEvent(confirmed ? "logout confirmed by the server" : "logged out here; the server could not be reached");
    setStatus($("login-status"), "Logged out", "");
    emit("logout");
    // No client-side leave: the point is to watch the server end the room connection itself.
    refreshControls();
  });

  window.Playground = { $, setStatus, logEvent, events, /** Set by payments.js: (client, options) => Promise. */ paymentUi: null };
  $("code").value = "player" + Math.random().toString(36).slice(2, 7) + ".1";
  refreshControls();
})();
