/**
 * Colyseus's Redis connections (presence, driver) as the server opens them. Colyseus and the session
 * guard subscribe while the presence is still connecting: with ioredis 5.8.2+ a SUBSCRIBE written
 * between the connect and the ready check made that check fail ("Connection in subscriber mode"),
 * and with it, now and then, the server's boot.
 */
import assert from "node:assert/strict";
import type { EventEmitter } from "node:events";
import { createColyseusRedis } from "../../src/adapters/cache/colyseus-redis";
import { testRedisUrl, uniquePrefix } from "../support/services";

(testRedisUrl ? describe : describe.skip)("Colyseus's Redis presence", function () {
  this.timeout(20_000);

  it("subscribes while connecting, then delivers, every time", async () => {
    for (let attempt = 0; attempt < 10; attempt++) {
      const { presence, driver } = createColyseusRedis({ kind: "redis", url: testRedisUrl! }, uniquePrefix("presence"));
      const sub = (presence as unknown as { sub: EventEmitter }).sub;
      const errors: Error[] = [];
      sub.on("error", (err: Error) => errors.push(err));
      const topic = `${uniquePrefix("topic")}${attempt}`;
      const received: unknown[] = [];
      try {
        // The moment the socket connects, before the ready check: where the boot's subscriptions can land.
        await new Promise<void>((resolve, reject) => {
          sub.once("connect", () => presence.subscribe(topic, (message: unknown) => received.push(message)).then(() => resolve(), reject));
        });
        await presence.publish(topic, { attempt });
        for (let i = 0; i < 50 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
        assert.deepEqual(received, [{ attempt }], `attempt ${attempt}: the message arrives`);
        assert.deepEqual(errors, [], `attempt ${attempt}: no connection error`);
      } finally {
        presence.shutdown();
        await driver.shutdown();
      }
    }
  });
});
