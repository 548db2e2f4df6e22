import type { Duplex } from "node:stream";

/**
 * Counts a socket's system-level writes from now on: each `_write` or `_writev` node's stream makes
 * (one per send call, however many chunks a corked socket gathered).
 */
export function countSystemWrites(socket: Duplex): () => number {
  const target = socket as unknown as Record<"_write" | "_writev", (...args: unknown[]) => void>;
  let writes = 0;
  for (const method of ["_writev", "_write"] as const) {
    const original = target[method];
    target[method] = function (this: unknown, ...args: unknown[]) {
      writes++;
      return original.apply(this, args);
    };
  }
  return () => writes;
}
