/**
 * The game client's socket transport as a reconnecting room needs it (client/src/colyseus/socket-transport.ts):
 * a close the client did not ask for is offered to the room's reconnection first, a dead socket's
 * second close or late message never reaches the room, and sending on a closed socket is dropped.
 */
import assert from "node:assert/strict";
import { RuntimeSocketTransport, type TransportOwner } from "../../client/src/colyseus/socket-transport";
import { memoryStorage, type Runtime, type RuntimeSocket } from "../../client/src/runtime";

function fakeSocket() {
  const handlers: { open?: () => void; message?: (d: string | ArrayBuffer) => void; close?: (c: number, r: string) => void } = {};
  const sent: unknown[] = [];
  const socket: RuntimeSocket = {
    send: (data) => {
      // Node's `ws` throws on a closed socket: the transport must not get here then.
      if (closed) throw new Error("WebSocket is not open");
      sent.push(data);
    },
    close: () => handlers.close?.(1000, ""),
    onOpen: (l) => (handlers.open = l),
    onMessage: (l) => (handlers.message = l),
    onClose: (l) => (handlers.close = (c, r) => ((closed = true), l(c, r))),
    onError: () => undefined,
  };
  let closed = false;
  return { socket, handlers, sent };
}

function setUp(owner: Partial<TransportOwner> = {}) {
  const fake = fakeSocket();
  const runtime = { platform: "wechat", storage: memoryStorage(), connectSocket: () => fake.socket } as unknown as Runtime;
  const seen: string[] = [];
  const events = {
    onopen: () => seen.push("open"),
    onmessage: (e: { data: unknown }) => seen.push(`message ${String(e.data)}`),
    onclose: (e: { code: number }) => seen.push(`close ${e.code}`),
  };
  let current = true;
  const transport = new RuntimeSocketTransport(events, runtime, {
    isCurrent: () => current,
    takeOverLoss: () => false,
    ...owner,
  });
  transport.connect("ws://x");
  return { transport, fake, seen, retire: () => (current = false) };
}

describe("game client socket transport", () => {
  it("offers an unrequested close of an open socket to the room's reconnection, and hides it when taken", () => {
    const offered: number[] = [];
    const { fake, seen } = setUp({ takeOverLoss: (code) => (offered.push(code), true) });
    fake.handlers.open!();
    fake.handlers.close!(1000, "interrupted");
    assert.deepEqual(offered, [1000]);
    assert.deepEqual(seen, ["open"], "the SDK never heard of the close");
  });

  it("passes on a close the client asked for", () => {
    const offered: number[] = [];
    const { transport, fake, seen } = setUp({ takeOverLoss: (code) => (offered.push(code), true) });
    fake.handlers.open!();
    transport.close();
    assert.deepEqual(offered, []);
    assert.deepEqual(seen, ["open", "close 1000"]);
  });

  it("reports one close per socket, and nothing once the room moved to a newer connection", () => {
    const { fake, seen, retire } = setUp();
    fake.handlers.open!();
    fake.handlers.close!(1006, "");
    fake.handlers.close!(1006, "");
    assert.deepEqual(seen, ["open", "close 1006"]);
    retire();
    fake.handlers.message!("late");
    assert.deepEqual(seen, ["open", "close 1006"]);
  });

  it("drops what is sent on a closed socket instead of throwing into the game's room.send", () => {
    const { transport, fake } = setUp({ takeOverLoss: () => true });
    fake.handlers.open!();
    transport.send("a");
    fake.handlers.close!(1006, "");
    assert.doesNotThrow(() => transport.send("b"));
    assert.deepEqual(fake.sent, ["a"]);
  });
});
