/**
 * The Douyin live client against a local server answering Douyin's documented replies: a live room
 * id past 2^53 (Douyin's are 19 digits, sent as JSON numbers) kept digit for digit, 40022 (the live
 * data calls' "invalid AccessToken") read as a rejected app token so the token service renews it,
 * and webcastmate/info's rate limit and missing capability not blamed on the streamer's launch token.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { AppError } from "../../src/core/errors";
import { createLogger } from "../../src/logging/logger";
import { DouyinLiveClient } from "../../src/platforms/douyin/douyin-live-client";
import { PlatformTokenRejectedError } from "../../src/platforms/platform";

describe("Douyin live client", () => {
  let server: http.Server;
  let client: DouyinLiveClient;
  let answer = "";

  before(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(answer));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const settings = { appId: "tt_live", appSecret: "", apiBaseUrl: base, extra: {} };
    client = new DouyinLiveClient({ settings, timeoutMs: 2000, busyRetries: 0, logger: createLogger({ level: "silent" }) }, base);
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it("keeps a 19-digit live room id exact (Douyin's own example)", async () => {
    answer = '{"data":{"ack_cfg":[],"info":{"room_id":7214015683695250235,"anchor_open_id":"_000oJIu6APhomK7KIBGqSYm5XYPxCJB_xxx","avatar_url":"","nick_name":"xxx"}}}';
    const info = await client.liveInfo("app-token", "launch-token");
    assert.equal(info.roomId, "7214015683695250235");
    assert.equal(info.anchorOpenId, "_000oJIu6APhomK7KIBGqSYm5XYPxCJB_xxx");
  });

  it("reads 40022 as a rejected app access token", async () => {
    answer = '{"err_no":40022,"err_msg":"无效的AccessToken","logid":"1"}';
    await assert.rejects(client.taskStatus("app-token", "7214015683695250235", "live_gift"), (err) => err instanceof PlatformTokenRejectedError);
  });

  it("blames the launch token for webcastmate/info's refusals, but not its rate limit or a missing capability", async () => {
    const codeOf = async (errNo: number) => {
      answer = JSON.stringify({ err_no: errNo, err_msg: "x" });
      return client.liveInfo("app-token", "launch-token").then(() => "ok", (err: AppError) => err.code);
    };
    assert.equal(await codeOf(40001), "live_token_invalid");
    assert.equal(await codeOf(40007), "platform_unavailable");
    assert.equal(await codeOf(40002), "platform_unavailable");
  });
});
