import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { createLogger } from "../../src/logging/logger";

describe("logger: payment keys and signatures are redacted", () => {
  it("replaces AppKeys, push Tokens, AES keys and payment signatures, also nested, and keeps the rest", () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = createLogger({ level: "info", destination });
    const secrets = { appKey: "AK-live-1", sandboxAppKey: "AK-sbx-2", pushToken: "TOKEN-3", encodingAesKey: "AES-4", pay_sig: "SIG-5", paySig: "SIG-6", msg_signature: "SIG-7" };
    logger.info({ event: "payment_probe", appId: "wx_probe", ...secrets, keys: { ...secrets }, app: { keys: { ...secrets } } }, "probe");
    const text = lines.join("");
    for (const value of Object.values(secrets)) assert.equal(text.includes(value), false, `${value} leaked: ${text}`);
    assert.ok(text.includes("[redacted]"));
    assert.ok(text.includes("wx_probe"), "the app id stays");
  });
});
