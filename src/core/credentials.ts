import crypto from "node:crypto";

/**
 * Helpers both edges (HTTP routes and rooms) use on presented credentials. They live in the core so
 * neither edge imports the other.
 */

/** Reads `Authorization: Bearer <token>`; anything else counts as no token. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** Compares a presented secret with the expected one without leaking where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && crypto.timingSafeEqual(ab, bb);
}
