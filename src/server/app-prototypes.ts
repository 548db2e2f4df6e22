/**
 * Requests and responses born with the Express app's prototypes. Express gives every request its
 * app's `request`/`response` prototypes with Object.setPrototypeOf (its application handler, and
 * the hot front's adopt, which does what it does): a prototype changed on a live object makes V8
 * move the request and the response off their fast shapes, and node's HTTP code then reads and
 * writes them slowly for the rest of the request. Measured (bench/experiments/hello-shapes.ts,
 * docs/performance.md, 2026-11-29): a hello-shaped answer with the request scope went from about
 * 65 µs of CPU to 150–190 µs per request with that one change per request; born with those
 * prototypes, it stays at 64–67 µs, and the setPrototypeOf calls that follow find the prototype
 * already in place (setting the same prototype again changes nothing).
 *
 * The server is Colyseus's, so its request and response classes (node keeps them under the
 * symbols `IncomingMessage` and `ServerResponse`, read for every new request) are replaced after
 * it is made. A node whose server holds no such symbols keeps its own classes; nothing else changes.
 */
import type express from "express";
import http from "node:http";

/** True when the server's requests and responses are born with the app's prototypes from now on. */
export function bearWithAppPrototypes(server: http.Server, app: express.Express): boolean {
  const symbols = Object.getOwnPropertySymbols(server);
  const requestKey = symbols.find((s) => s.description === "IncomingMessage");
  const responseKey = symbols.find((s) => s.description === "ServerResponse");
  const slots = server as unknown as Record<symbol, unknown>;
  // Only over node's own classes: a server made with classes of its own keeps them.
  if (!requestKey || !responseKey || slots[requestKey] !== http.IncomingMessage || slots[responseKey] !== http.ServerResponse) return false;
  slots[requestKey] = bornWith(http.IncomingMessage, app.request);
  slots[responseKey] = bornWith(http.ServerResponse, app.response);
  return true;
}

/** A constructor of `base`'s instances whose prototype is `prototype` (an object whose own prototype is `base.prototype`). */
function bornWith(base: new (...args: never[]) => object, prototype: object): unknown {
  function Born(...args: unknown[]): object {
    return Reflect.construct(base, args, Born);
  }
  Born.prototype = prototype;
  return Born;
}
