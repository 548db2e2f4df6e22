/**
 * Frames sent to one WebSocket during one event-loop turn leave in one write. A room relays each
 * message to every player, so under load a player's socket receives several frames per turn, and
 * `ws` writes each one with its own writev: on loopback and LAN that system call (the kernel's TCP
 * work) was two thirds of the CPU a relayed message cost. The socket is corked at its first send of
 * the turn and uncorked right after the turn's I/O callbacks (setImmediate): frames keep their
 * order, nothing waits for a timer, and an idle server sends each frame as soon as before.
 *
 * A corked socket keeps a reference to each frame's bytes until it is uncorked, and Colyseus
 * encodes state patches into one buffer it reuses: a later patch of the same turn would overwrite
 * an earlier one still waiting (clients decoded garbage: "@colyseus/schema: definition mismatch").
 * So binary frames are copied as they are queued; strings are immutable and go as they are.
 */
import type net from "node:net";
import type WebSocket from "ws";
import { corkUntilTurnEnds } from "./turn-cork";

/** Makes `ws.send` cork the connection's socket until the end of the current turn. */
export function batchWritesPerTurn(ws: WebSocket): void {
  // ws keeps the net.Socket it frames onto as `_socket` (ws 7 and 8).
  const socket = (ws as unknown as { _socket?: net.Socket })._socket;
  if (!socket || typeof socket.cork !== "function") return;
  const send = ws.send;
  ws.send = function sendBatched(this: WebSocket, ...args: Parameters<WebSocket["send"]>) {
    corkUntilTurnEnds(socket);
    const [data, ...rest] = args;
    // Buffer.from(arrayBufferView) would share memory for a Buffer; copying its bytes is the point.
    const owned = ArrayBuffer.isView(data) ? Buffer.from(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)) : data instanceof ArrayBuffer ? Buffer.from(data.slice(0)) : data;
    return send.apply(this, [owned, ...rest] as Parameters<WebSocket["send"]>);
  } as WebSocket["send"];
}
