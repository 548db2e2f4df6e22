/**
 * The (timestamp, nonce) pairs of WeChat's message pushes seen while their timestamp is accepted,
 * kept in the shared cache so every process knows them. In plain mode the query signature covers
 * only Token, timestamp and nonce, not the body: whoever captures one push URL could send it again
 * with another body for as long as the timestamp is within the skew window. Each pair is bound
 * here to the digest of the first body that came with it: the same pair with another body is a
 * replay and is refused; the same pair with the same body is the platform sending that push again
 * (its retries may reuse the query: unconfirmed) and goes on to the usual once-only handling.
 */
import crypto from "node:crypto";
import type { Cache } from "../core/ports/cache";

export class PushNonces {
  constructor(
    private readonly cache: Cache,
    /** How far a push's timestamp may be from our clock, in seconds: a pair is remembered until it would be refused as stale. */
    private readonly skewSec: number,
    private readonly nowSec: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  /**
   * Whether a push whose signature verified may be handled: its pair is new (now remembered with
   * this body), or was seen with this very body. Throws when the cache cannot answer (the push is
   * then answered as a failure, and the platform sends it again).
   */
  async admit(route: string, appId: string, timestamp: string, nonce: string, body: string): Promise<boolean> {
    const pair = digest(`${timestamp}\0${nonce}`);
    const key = `push_nonce:${route}:${appId}:${pair}`;
    const bodyDigest = digest(body);
    const ttlMs = Math.max(1, Number(timestamp) + this.skewSec - this.nowSec() + 1) * 1000;
    if (await this.cache.setIfAbsent(key, bodyDigest, ttlMs)) return true;
    return (await this.cache.get(key)) === bodyDigest;
  }
}

const digest = (text: string) => crypto.createHash("sha256").update(text).digest("base64url");
