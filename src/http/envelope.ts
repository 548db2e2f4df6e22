import type { Response } from "express";

/** The response envelope of every `/api` route (spec 2.1). */
export interface Envelope<T> {
  success: boolean;
  message: string;
  data: T;
}

export function sendOk<T>(res: Response, data: T, message = "OK", status = 200): void {
  const body: Envelope<T> = { success: true, message, data };
  sendJson(res, status, body);
}

/**
 * Writes a JSON answer straight to the response. Express's res.json → res.send also checks request
 * freshness (If-None-Match/If-Modified-Since), ETag settings and charset on every call: none of it
 * applies to per-user API answers, which are never cached or revalidated.
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(json));
  res.end(res.req.method === "HEAD" ? undefined : json);
}
