import assert from "node:assert/strict";
import crypto from "node:crypto";
import {
  decryptOpenData,
  encryptOpenData,
  loginStateSignature,
  parseEncryptedInput,
  rawDataSignature,
  verifyRawDataSignature,
  watermarkAppId,
} from "../../src/core/open-data-crypto";

// The official WXBizDataCrypt sample (platform-apis.md §3, platform-apis-2.md §2.2).
const SAMPLE = {
  appid: "wx4f4bc4dec97d474b",
  sessionKey: "tiihtNczf5v6AKRyjwEUhQ==",
  iv: "r7BXXKkLb8qrSNn05n0qiA==",
  encryptedData:
    "CiyLU1Aw2KjvrjMdj8YKliAjtP4gsMZMQmRzooG2xrDcvSnxIMXFufNstNGTyaGS9uT5geRa0W4oTOb1WT7fJlAC+oNPdbB+3hVbJSRgv+4lGOETKUQz6OYStslQ142dNCuabNPGBzlooOmB231qMM85d2/fV6ChevvXvQP8Hkue1poOFtnEtpyxVLW1zAo6/1Xx1COxFvrc2d7UL/lmHInNlxuacJXwu0fjpXfz/YqYzBIBzD6WUfTIF9GRHpOn/Hz7saL8xz+W//FRAUid1OksQaQx4CMs8LOddcQhULW4ucetDf96JcR3g0gfRK4PC7E/r7Z6xNrXd2UIeorGj5Ef7b1pJAYB6Y5anaHqZ9J6nKEBvB4DnNLIVWSgARns/8wR2SiRS7MNACwTyrGvt9ts8p12PKFdlqYTopNHR1Vf7XjfhQlVsAJdNiKdYmYVoKlaRv85IfVunYzO0IKXsyl7JCUjCpoG20f0a04COwfneQAGGwd5oa+T8yO5hzuyDb/XcxxmK01EpqOyuxINew==",
};

function parsed(encryptedData: string, iv: string) {
  const input = parseEncryptedInput(encryptedData, iv);
  assert.ok(!("problems" in input), JSON.stringify(input));
  return input;
}

describe("open-data crypto", () => {
  it("decrypts the official WeChat sample to its documented plaintext", () => {
    const data = decryptOpenData(parsed(SAMPLE.encryptedData, SAMPLE.iv), SAMPLE.sessionKey);
    assert.ok(data);
    assert.equal(data.openId, "oGZUI0egBJY1zhBYw2KhdUfwVJJE");
    assert.equal(data.unionId, "ocMvos6NjeKLIBqg5Mr9QjxrP1FA");
    assert.deepEqual(data.watermark, { timestamp: 1477314187, appid: SAMPLE.appid });
    assert.equal(watermarkAppId(data), SAMPLE.appid);
    // The published digest of the unpadded plaintext (part 2 §2.2): JSON.stringify keeps the sample's key order.
    const digest = crypto.createHash("sha256").update(JSON.stringify(data)).digest("hex");
    assert.equal(digest, "3237d8a5dbd413523c194882c7156544d8a06e2afcc97383cc300c17bd09391b");
  });

  it("gives undefined, not an exception, for another session key (bad padding or not JSON)", () => {
    const input = parsed(SAMPLE.encryptedData, SAMPLE.iv);
    for (let i = 0; i < 20; i++) {
      assert.equal(decryptOpenData(input, crypto.randomBytes(16).toString("base64")), undefined);
    }
    assert.equal(decryptOpenData(input, "not a key"), undefined);
  });

  it("round-trips data it encrypted, and refuses a plaintext that is not a JSON object", () => {
    const key = crypto.randomBytes(16).toString("base64");
    const sealed = encryptOpenData({ hello: "世界", watermark: { appid: "wx_app", timestamp: 1 } }, key);
    assert.deepEqual(decryptOpenData(parsed(sealed.encryptedData, sealed.iv), key), { hello: "世界", watermark: { appid: "wx_app", timestamp: 1 } });

    const iv = crypto.randomBytes(16);
    const cipher = crypto.createCipheriv("aes-128-cbc", Buffer.from(key, "base64"), iv);
    const array = Buffer.concat([cipher.update("[1,2,3]"), cipher.final()]).toString("base64");
    assert.equal(decryptOpenData(parsed(array, iv.toString("base64")), key), undefined);
  });

  it("reports junk input field by field before any key is involved", () => {
    const cases: Array<[string, string, string[]]> = [
      ["not base64!", SAMPLE.iv, ["encryptedData"]],
      ["", SAMPLE.iv, ["encryptedData"]],
      [Buffer.alloc(15).toString("base64"), SAMPLE.iv, ["encryptedData"]], // not whole blocks
      [SAMPLE.encryptedData, Buffer.alloc(8).toString("base64"), ["iv"]],
      ["@@", "##", ["encryptedData", "iv"]],
    ];
    for (const [data, iv, fields] of cases) {
      const result = parseEncryptedInput(data, iv);
      assert.ok("problems" in result, `${data} / ${iv}`);
      assert.deepEqual(result.problems.map((p) => p.field), fields);
    }
  });

  it("computes the rawData signature of the documented vector and compares it strictly", () => {
    const rawData =
      '{"nickName":"Band","gender":1,"language":"zh_CN","city":"Guangzhou","province":"Guangdong","country":"CN","avatarUrl":"http://wx.qlogo.cn/mmopen/vi_32/1vZvI39NWFQ9XM4LtQpFrQJ1xlgZxx3w7bQxKARol6503Iuswjjn6nIGBiaycAjAtpujxyzYsrztuuICqIM5ibXQ/0"}';
    const sessionKey = "HyVFkGl5F5OQWJZZaNzBBg==";
    const signature = "75e81ceda165f4ffa64f4068af58c64b8f54b88c";
    assert.equal(rawDataSignature(rawData, sessionKey), signature);
    assert.equal(verifyRawDataSignature(rawData, sessionKey, signature), true);
    assert.equal(verifyRawDataSignature(rawData + " ", sessionKey, signature), false);
    assert.equal(verifyRawDataSignature(rawData, sessionKey, signature.slice(0, -1)), false);
    assert.equal(verifyRawDataSignature(rawData, sessionKey, ""), false);
  });

  it("keys the login-state HMAC by the session key's base64 text (the verified vectors)", () => {
    assert.equal(
      loginStateSignature("o0q0otL8aEzpcZL/FT9WsQ==", '{"foo":"bar"}'),
      "654571f79995b2ce1e149e53c0a33dc39c0a74090db514261454e8dbe432aa0b",
    );
    assert.equal(
      loginStateSignature("724edcafc423d167724edcbe", '{"foo":"bar"}'),
      "44b5092fa1c9adba03803239934d4958b8a1840adf0cee8d5e95c1cf5d495e0e",
    );
    assert.equal(loginStateSignature("o0q0otL8aEzpcZL/FT9WsQ=="), crypto.createHmac("sha256", "o0q0otL8aEzpcZL/FT9WsQ==").update("").digest("hex"));
  });
});
