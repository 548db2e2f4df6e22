// A minimal mini-game on this server: logs in with the platform, joins the `lobby` room and shows
// its chat on the canvas. Tap the screen to say hello. Runs unchanged in WeChat (wx) and Douyin (tt).
const { createGameClient } = require("./minigame-client.js");

// `npm start` on this machine. A phone needs an https:// domain from the console's allow-list.
const SERVER = "http://127.0.0.1:2567";
const api = typeof tt !== "undefined" ? tt : wx;

const canvas = api.createCanvas();
const context = canvas.getContext("2d");
const lines = [];

function show(text) {
  lines.push(text);
  while (lines.length > 24) lines.shift();
  context.fillStyle = "#101820";
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.fillStyle = "#f2f2f2";
  context.font = "16px sans-serif";
  lines.forEach((line, i) => context.fillText(line, 16, 40 + i * 24));
}

const client = createGameClient({ server: SERVER });
let room = null;

function enter(joined) {
  room = joined;
  room.onMessage("chat", (message) => show(message.name + ": " + message.text));
  room.onMessage("error", (problem) => show("refused: " + problem.code));
}

async function start() {
  try {
    const user = await client.login(); // the platform's login, or the session stored by the last start
    show("Logged in as " + (user.nickname || user.username));
    enter(await client.joinOrCreate("lobby"));
    show("In the lobby. Tap to say hello.");
  } catch (err) {
    show("Error: " + (err.code ? err.code + " " : "") + err.message);
  }
}

// The server ended the session (logged in on another phone, logged out elsewhere…): log in again.
client.on("sessionEnded", () => {
  room = null;
  show("Session ended; logging in again");
  start();
});
// The same player joined this room from a newer game: still logged in, just seated elsewhere.
client.on("seatReplaced", () => {
  room = null;
  show("You joined from another device");
});
// A network switch, the app in the background or an ad dropped the socket: the client takes the
// seat back by itself (the same room object, handlers included); these only keep the player informed.
client.on("reconnecting", () => show("Connection lost; reconnecting…"));
client.on("reconnected", () => show("Back in the lobby"));
client.on("reconnectFailed", (event) => {
  room = null;
  show("Could not get the seat back (" + event.reason + "); joining again");
  start();
});

api.onTouchStart(() => {
  if (room) room.send("chat", { text: "hello at " + new Date().toLocaleTimeString() });
});

start();
