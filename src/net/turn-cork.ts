/**
 * Writes to one socket during one event-loop turn leave in one system call. On loopback and LAN the
 * send call (the kernel's TCP work, charged to the writer) is most of what a small write costs, and
 * under load a socket is written several times per turn: a room relays each message to every player,
 * a Redis connection carries the commands of every request that turn served. The socket is corked at
 * its first write of the turn and uncorked right after the turn's I/O callbacks (setImmediate): the
 * order of writes is kept, nothing waits for a timer, and an idle server writes as soon as before.
 */
import type { Duplex } from "node:stream";

const corked = new Set<Duplex>();
let flushScheduled = false;

function flush(): void {
  flushScheduled = false;
  for (const socket of corked) socket.uncork();
  corked.clear();
}

/** Corks `socket` until the end of the current turn, unless it already is. Call before writing. */
export function corkUntilTurnEnds(socket: Duplex): void {
  if (corked.has(socket) || !socket.writable) return;
  socket.cork();
  corked.add(socket);
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flush);
  }
}
