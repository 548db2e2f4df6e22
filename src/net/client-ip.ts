/**
 * The one rule for "which address is this client", used by the Express API, the matchmaking
 * requests and the room WebSocket transport alike.
 *
 * The socket's peer address is the client, unless TRUST_PROXY says which hops in front of us are
 * our own proxies; then X-Forwarded-For is read from the nearest hop outwards, exactly as Express's
 * `trust proxy` does (same package, same semantics). X-Real-IP is never read: a client can set it.
 * Only a valid IP address comes out, in one canonical form, so header text can never become a
 * rate-limit key and `::ffff:1.2.3.4` and `1.2.3.4` are the same client.
 */
/// <reference path="./proxy-addr.d.ts" />
import type { IncomingMessage } from "node:http";
import net from "node:net";
import proxyaddr from "proxy-addr";

/** TRUST_PROXY as parsed by the config: off, every hop, a hop count, or a list of proxy addresses/subnets. */
export type TrustProxySetting = boolean | number | string;

export type TrustFunction = (addr: string, hop: number) => boolean;

/** What a request whose socket has already closed resolves to (Node clears remoteAddress then). */
export const UNKNOWN_CLIENT_IP = "unknown";

/** Express's compileTrust, so `app.set("trust proxy", fn)` and our resolver decide identically. */
export function compileTrust(setting: TrustProxySetting): TrustFunction {
  if (setting === true) return () => true;
  if (setting === false) return () => false;
  if (typeof setting === "number") return (_addr, hop) => hop < setting;
  return proxyaddr.compile(setting.split(",").map((s) => s.trim()).filter(Boolean));
}

/**
 * The canonical text of an IP address (IPv4 dotted, IPv6 compressed lower-case, IPv4-mapped IPv6 as
 * IPv4, zone id dropped), or undefined when `text` is not an address.
 */
export function canonicalIp(text: string): string | undefined {
  // The common case, e.g. every socket address on an IPv4 listener: already canonical.
  if (net.isIPv4(text)) return text;
  const address = text.trim().replace(/^\[(.*)\]$/, "$1").split("%")[0];
  const version = net.isIP(address);
  if (version === 4) return address;
  if (version !== 6) return undefined;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped && net.isIPv4(mapped[1])) return mapped[1];
  // The WHATWG URL parser writes IPv6 hosts in their canonical (RFC 5952) form.
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const mappedHex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (mappedHex) {
    const [hi, lo] = [parseInt(mappedHex[1], 16), parseInt(mappedHex[2], 16)];
    return [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");
  }
  return canonical;
}

/**
 * Who a per-address rate limit counts: an IPv4 address, or an IPv6 address's /64 network. One
 * subscriber line or cloud host is routinely given a whole /64, so counting single IPv6 addresses
 * would let a client rotate through 2^64 of them and never be limited.
 */
export function rateLimitSubject(ip: string): string {
  if (!net.isIPv6(ip)) return ip;
  const [head, tail = ""] = ip.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = ip.includes("::") ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right] : left;
  return `${groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(":")}::/64`;
}

/** Resolves the client address of a request by one compiled TRUST_PROXY rule. */
export function clientIpResolver(trust: TrustFunction): (req: IncomingMessage) => string {
  return (req) => {
    // The socket's peer is not a proxy of ours (always so without TRUST_PROXY): it is the client,
    // and forwarded headers are not even parsed. proxy-addr's walk would stop at this same hop.
    const peer = req.socket.remoteAddress;
    if (peer !== undefined && !trust(peer, 0)) return canonicalIp(peer) ?? UNKNOWN_CLIENT_IP;
    // Nearest first: the socket, then forwarded entries up to and including the first untrusted one.
    // Garbage in a forwarded entry stops the walk at the last real address before it.
    let client: string | undefined;
    for (const hop of proxyaddr.all(req, trust)) {
      const ip = typeof hop === "string" ? canonicalIp(hop) : undefined;
      if (!ip) break;
      client = ip;
    }
    return client ?? UNKNOWN_CLIENT_IP;
  };
}
