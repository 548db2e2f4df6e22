import assert from "node:assert/strict";
import net from "node:net";
import Redis from "ioredis";
import { batchRedisWritesPerTurn } from "../../src/adapters/cache/redis-turn-writes";
import { countSystemWrites } from "../support/socket-writes";

/**
 * A loopback server speaking just enough RESP: each command is answered with its own first
 * argument as a bulk string, so replies show the order the commands arrived in.
 */
async function echoServer(): Promise<{ server: net.Server; port: number; sockets: Set<net.Socket> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    let pending = "";
    socket.on("data", (chunk) => {
      pending += chunk.toString("latin1");
      // *<n>\r\n then n × ($<len>\r\n<bytes>\r\n)
      for (;;) {
        const parsed = parseCommand(pending);
        if (!parsed) break;
        pending = pending.slice(parsed.used);
        const reply = parsed.args[1] ?? parsed.args[0];
        socket.write(`$${Buffer.byteLength(reply)}\r\n${reply}\r\n`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as net.AddressInfo).port, sockets };
}

function parseCommand(text: string): { args: string[]; used: number } | null {
  const head = /^\*(\d+)\r\n/.exec(text);
  if (!head) return null;
  let at = head[0].length;
  const args: string[] = [];
  for (let i = 0; i < Number(head[1]); i++) {
    const len = /^\$(\d+)\r\n/.exec(text.slice(at));
    if (!len) return null;
    const start = at + len[0].length;
    if (text.length < start + Number(len[1]) + 2) return null;
    args.push(text.slice(start, start + Number(len[1])));
    at = start + Number(len[1]) + 2;
  }
  return { args, used: at };
}

/** Counts the system-level writes of the client's current socket. */
function countWrites(client: Redis): () => number {
  return countSystemWrites((client as unknown as { stream: net.Socket }).stream);
}

async function connected(port: number, batched: boolean): Promise<Redis> {
  const client = new Redis({ host: "127.0.0.1", port, enableReadyCheck: false, maxRetriesPerRequest: 1, retryStrategy: () => 20 });
  if (batched) batchRedisWritesPerTurn(client);
  await new Promise((resolve) => client.once("ready", resolve));
  return client;
}

describe("batchRedisWritesPerTurn", () => {
  it("writes the commands of one turn in one system call, in order, each answered", async () => {
    const { server, port } = await echoServer();
    const client = await connected(port, true);
    try {
      const writes = countWrites(client);
      const replies = Promise.all(["a", "b", "c", "d"].map((key) => client.get(key)));
      assert.equal(writes(), 0, "nothing is written before the turn ends");
      assert.deepEqual(await replies, ["a", "b", "c", "d"]);
      assert.equal(writes(), 1);
      assert.equal(await client.get("e"), "e");
      assert.equal(writes(), 2, "a later turn's command goes at that turn's end");
    } finally {
      client.disconnect();
      server.close();
    }
  });

  it("writes each command by itself without it (what the batching saves)", async () => {
    const { server, port } = await echoServer();
    const client = await connected(port, false);
    try {
      const writes = countWrites(client);
      assert.deepEqual(await Promise.all(["a", "b", "c"].map((key) => client.get(key))), ["a", "b", "c"]);
      assert.equal(writes(), 3);
    } finally {
      client.disconnect();
      server.close();
    }
  });

  it("batches the new socket of a reconnection too", async () => {
    const { server, port, sockets } = await echoServer();
    const client = await connected(port, true);
    try {
      const reconnected = new Promise((resolve) => client.once("ready", resolve));
      for (const socket of sockets) socket.destroy();
      await reconnected;
      const writes = countWrites(client);
      assert.deepEqual(await Promise.all(["x", "y"].map((key) => client.get(key))), ["x", "y"]);
      assert.equal(writes(), 1);
    } finally {
      client.disconnect();
      server.close();
    }
  });
});
