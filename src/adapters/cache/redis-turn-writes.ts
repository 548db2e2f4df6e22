/**
 * The commands a Redis connection is given during one event-loop turn leave in one write
 * (src/net/turn-cork.ts): a join wrote the room listing, the session read and the listing query each
 * with its own send call, and those calls were the largest part of a join's CPU beyond Colyseus's.
 * ioredis writes every command, pipelines included, with its stream's `write`; a reconnection opens a
 * new stream, so each is wrapped as it connects. A cluster's node connections are wrapped as they come.
 */
import type { Cluster, Redis } from "ioredis";
import type { Duplex } from "node:stream";
import { corkUntilTurnEnds } from "../../net/turn-cork";

const wrapped = new WeakSet<Duplex>();

function wrapStream(client: Redis): void {
  const stream = (client as unknown as { stream?: Duplex }).stream;
  if (!stream || wrapped.has(stream) || typeof stream.cork !== "function") return;
  wrapped.add(stream);
  const write = stream.write;
  stream.write = function writeCorked(this: Duplex, ...args: unknown[]) {
    corkUntilTurnEnds(stream);
    return (write as (...a: unknown[]) => boolean).apply(this, args);
  } as Duplex["write"];
}

export function batchRedisWritesPerTurn(client: Redis | Cluster): void {
  if ("nodes" in client && typeof client.nodes === "function") {
    const cluster = client as Cluster;
    cluster.on("+node", (node: Redis) => batchRedisWritesPerTurn(node));
    for (const node of cluster.nodes()) batchRedisWritesPerTurn(node);
    return;
  }
  const redis = client as Redis;
  redis.on("connect", () => wrapStream(redis));
  wrapStream(redis);
}
