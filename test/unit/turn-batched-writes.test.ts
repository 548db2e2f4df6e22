import assert from "node:assert/strict";
import type net from "node:net";
import WebSocket, { WebSocketServer } from "ws";
import { batchWritesPerTurn } from "../../src/net/turn-batched-writes";
import { countSystemWrites } from "../support/socket-writes";

/** A server-side socket whose system-level writes are counted, and a client that collects frames. */
async function pair(batched: boolean) {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => wss.once("listening", resolve));
  const serverSide = new Promise<WebSocket>((resolve) => wss.once("connection", resolve));
  const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as net.AddressInfo).port}`);
  const received: string[] = [];
  client.on("message", (data) => received.push(String(data)));
  const closed = new Promise<number>((resolve) => client.once("close", (code) => resolve(code)));
  await new Promise((resolve) => client.once("open", resolve));
  const ws = await serverSide;
  if (batched) batchWritesPerTurn(ws);
  const writes = countSystemWrites((ws as unknown as { _socket: net.Socket })._socket);
  return { wss, ws, client, received, closed, writes };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(check(), "timed out");
}

describe("batchWritesPerTurn", () => {
  it("sends the frames of one turn in one write, in order; each later turn's frames go at that turn's end", async () => {
    const { wss, ws, client, received, writes } = await pair(true);
    try {
      for (let i = 0; i < 5; i++) ws.send(`m${i}`);
      assert.equal(writes(), 0, "nothing is written before the turn ends");
      await until(() => received.length === 5);
      assert.deepEqual(received, ["m0", "m1", "m2", "m3", "m4"]);
      assert.equal(writes(), 1);
      ws.send("m5");
      await until(() => received.length === 6);
      assert.equal(received[5], "m5");
      assert.equal(writes(), 2);
    } finally {
      client.terminate();
      wss.close();
    }
  });

  it("keeps each frame's bytes as they were when sent, though the sender reuses its buffer in the same turn", async () => {
    // What Colyseus does with state patches: one encode buffer, overwritten by the next patch.
    const { wss, ws, client, received } = await pair(true);
    try {
      const reused = Buffer.from("patch-1");
      ws.send(reused);
      reused.write("patch-2");
      ws.send(reused);
      const view = new Uint8Array(Buffer.from("xxpatch-3yy")).subarray(2, 9);
      ws.send(view);
      view.set(Buffer.from("patch-4"));
      ws.send(view);
      await until(() => received.length === 4);
      assert.deepEqual(received, ["patch-1", "patch-2", "patch-3", "patch-4"]);
    } finally {
      client.terminate();
      wss.close();
    }
  });

  it("writes each frame on its own without it (what the batching saves)", async () => {
    const { wss, ws, client, received, writes } = await pair(false);
    try {
      for (let i = 0; i < 5; i++) ws.send(`m${i}`);
      await until(() => received.length === 5);
      assert.equal(writes(), 5);
    } finally {
      client.terminate();
      wss.close();
    }
  });

  it("delivers a frame sent just before a close, and the close code", async () => {
    const { wss, ws, received, closed } = await pair(true);
    try {
      ws.send("bye");
      ws.close(4401, "session_revoked");
      assert.equal(await closed, 4401);
      assert.deepEqual(received, ["bye"]);
    } finally {
      wss.close();
    }
  });
});
