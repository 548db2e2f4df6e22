/** Pure pieces of the game client (client/src) that the runtime suites only reach indirectly. */
import assert from "node:assert/strict";
import { parseEndpoint, queryString } from "../../client/src/endpoint";
import { toArrayBuffer } from "../../client/src/colyseus/socket-transport";
import { SEAT_REPLACED_CLOSE_CODE, SESSION_ENDED_CLOSE_CODE, isConnectionLoss } from "../../client/src/close-codes";
import { SEAT_REPLACED_CLOSE_CODE as SERVER_SEAT_REPLACED } from "../../rooms/AuthenticatedRoom";
import { SESSION_ENDED_CLOSE_CODE as SERVER_SESSION_ENDED } from "../../rooms/session-guard";

describe("game client pieces", () => {
  it("parses server addresses without URL: scheme, host, port, path", () => {
    assert.deepEqual(parseEndpoint("https://game.example.com"), { hostname: "game.example.com", port: 443, secure: true, pathname: "", httpBase: "https://game.example.com" });
    assert.deepEqual(parseEndpoint("http://127.0.0.1:2567/"), { hostname: "127.0.0.1", port: 2567, secure: false, pathname: "", httpBase: "http://127.0.0.1:2567" });
    assert.equal(parseEndpoint("wss://h.example:443/a/b//").httpBase, "https://h.example/a/b");
    assert.equal(parseEndpoint("http://[::1]:8080").hostname, "[::1]");
    for (const bad of ["game.example.com", "ftp://x", "https://", "https://h:99999x"]) assert.throws(() => parseEndpoint(bad), /http\(s\)/);
  });

  it("encodes query strings and leaves out missing codes", () => {
    assert.equal(queryString({ code: "a.1", anonymous_code: undefined, x: "" }), "code=a.1");
    assert.equal(queryString({ jsCode: "a b&c" }), "jsCode=a%20b%26c");
  });

  it("copies exactly a view's bytes into a standalone ArrayBuffer (what a SocketTask accepts)", () => {
    const shared = new Uint8Array([9, 9, 1, 2, 3, 9]);
    const copy = toArrayBuffer(shared.subarray(2, 5));
    assert.equal(Object.prototype.toString.call(copy), "[object ArrayBuffer]");
    assert.deepEqual([...new Uint8Array(copy)], [1, 2, 3]);
    const whole = new ArrayBuffer(4);
    assert.equal(toArrayBuffer(whole), whole);
  });

  it("treats only network-level closes as worth a reconnect", () => {
    assert.equal(isConnectionLoss(1006), true);
    assert.equal(isConnectionLoss(1001), true);
    for (const code of [1000, 4000, 4401, 4409]) assert.equal(isConnectionLoss(code), false);
  });

  it("uses the server's close codes: a replaced seat and an ended session are told apart", () => {
    assert.equal(SESSION_ENDED_CLOSE_CODE, SERVER_SESSION_ENDED);
    assert.equal(SEAT_REPLACED_CLOSE_CODE, SERVER_SEAT_REPLACED);
    assert.notEqual(SEAT_REPLACED_CLOSE_CODE, SESSION_ENDED_CLOSE_CODE);
  });
});
