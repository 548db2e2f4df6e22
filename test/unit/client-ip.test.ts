/**
 * The client-address rule shared by both edges: forwarded headers count only through trusted hops,
 * and only a real address in one canonical form comes out (never header text).
 */
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { canonicalIp, clientIpResolver, compileTrust, rateLimitSubject, UNKNOWN_CLIENT_IP } from "../../src/net/client-ip";
import { MemoryCache } from "../../src/adapters/cache/memory-cache";
import { AppError } from "../../src/core/errors";
import { RateLimiter } from "../../src/services/rate-limiter";
import { parseConfig } from "../../src/config/config";

function request(socketAddress: string | undefined, headers: Record<string, string> = {}): IncomingMessage {
  return { headers, socket: { remoteAddress: socketAddress }, connection: { remoteAddress: socketAddress } } as unknown as IncomingMessage;
}

describe("client address rule", () => {
  it("writes every address one way", () => {
    assert.equal(canonicalIp("203.0.113.7"), "203.0.113.7");
    assert.equal(canonicalIp("::ffff:203.0.113.7"), "203.0.113.7");
    assert.equal(canonicalIp("::FFFF:cb00:7107"), "203.0.113.7");
    assert.equal(canonicalIp("2001:DB8:0:0:0:0:0:1"), "2001:db8::1");
    assert.equal(canonicalIp("[2001:db8::1]"), "2001:db8::1");
    assert.equal(canonicalIp("fe80::1%eth0"), "fe80::1");
    for (const junk of ["", "unknown", "203.0.113.7, 198.51.100.1", "1.2.3.4.5", "<script>", "a".repeat(500)]) assert.equal(canonicalIp(junk), undefined, junk);
  });

  it("ignores X-Forwarded-For and X-Real-IP without TRUST_PROXY", () => {
    const resolve = clientIpResolver(compileTrust(false));
    assert.equal(resolve(request("::ffff:10.0.0.5", { "x-forwarded-for": "203.0.113.7", "x-real-ip": "203.0.113.8" })), "10.0.0.5");
  });

  it("reads X-Forwarded-For from the nearest hop out, as far as hops are trusted", () => {
    const headers = { "x-forwarded-for": "203.0.113.7, 198.51.100.9", "x-real-ip": "192.0.2.1" };
    assert.equal(clientIpResolver(compileTrust(1))(request("127.0.0.1", headers)), "198.51.100.9");
    assert.equal(clientIpResolver(compileTrust(2))(request("127.0.0.1", headers)), "203.0.113.7");
    assert.equal(clientIpResolver(compileTrust("loopback"))(request("127.0.0.1", headers)), "198.51.100.9");
    assert.equal(clientIpResolver(compileTrust("loopback, 198.51.100.0/24"))(request("127.0.0.1", headers)), "203.0.113.7");
    assert.equal(clientIpResolver(compileTrust("loopback"))(request("10.1.1.1", headers)), "10.1.1.1", "an untrusted socket speaks for itself");
  });

  it("never returns header text: a forwarded entry that is not an address stops at the last real one", () => {
    const resolve = clientIpResolver(compileTrust(true));
    assert.equal(resolve(request("127.0.0.1", { "x-forwarded-for": "spoofed-0001" })), "127.0.0.1");
    assert.equal(resolve(request("127.0.0.1", { "x-forwarded-for": "junk, 198.51.100.9" })), "198.51.100.9");
    assert.equal(resolve(request(undefined)), UNKNOWN_CLIENT_IP);
  });

  it("is configured by TRUST_PROXY, HOST and CORS_ORIGINS, with safe defaults per environment", () => {
    const dev = parseConfig({});
    assert.equal(dev.host, "127.0.0.1");
    assert.equal(dev.corsOrigins, "any");
    assert.equal(dev.trustProxy, false);
    const listed = parseConfig({ CORS_ORIGINS: "https://Game.Example.com, http://localhost:5173", HOST: "::", TRUST_PROXY: "loopback,10.0.0.0/8" });
    assert.deepEqual(listed.corsOrigins, ["https://game.example.com", "http://localhost:5173"]);
    assert.equal(listed.host, "::");
    assert.equal(parseConfig({ CORS_ORIGINS: "none" }).corsOrigins.length, 0);
    assert.throws(() => parseConfig({ CORS_ORIGINS: "game.example.com" }), /CORS_ORIGINS/);
    assert.throws(() => parseConfig({ CORS_ORIGINS: "https://game.example.com/path" }), /CORS_ORIGINS/);
    assert.throws(() => parseConfig({ TRUST_PROXY: "my-proxy" }), /TRUST_PROXY/);
    assert.throws(() => parseConfig({ HOST: "0.0.0.0 evil" }), /HOST/);
  });

  it("counts IPv4 addresses one by one and IPv6 addresses by their /64", () => {
    assert.equal(rateLimitSubject("203.0.113.7"), "203.0.113.7");
    assert.equal(rateLimitSubject("2001:db8:aa:bb::1"), "2001:db8:aa:bb::/64");
    assert.equal(rateLimitSubject("2001:db8:aa:bb:ffff:1:2:3"), "2001:db8:aa:bb::/64");
    assert.equal(rateLimitSubject("2001:db8::1"), "2001:db8:0:0::/64");
    assert.equal(rateLimitSubject("::1"), "0:0:0:0::/64");
    assert.equal(rateLimitSubject(UNKNOWN_CLIENT_IP), UNKNOWN_CLIENT_IP);
  });

  it("gives one IPv6 /64 one per-address budget in the rate limiter", async () => {
    const limiter = new RateLimiter(new MemoryCache(), true);
    for (let i = 1; i <= 3; i++) await limiter.hitAddress("login", `2001:db8:1:2::${i}`, 3, 60);
    await assert.rejects(limiter.hitAddress("login", "2001:db8:1:2:abcd::9", 3, 60), (e: AppError) => e.code === "rate_limited");
    await limiter.hitAddress("login", "2001:db8:1:3::1", 3, 60);
    await limiter.hitAddress("matchmake", "2001:db8:1:2::1", 3, 60);
  });
});
