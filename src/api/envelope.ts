import type { Response } from "express";

/** The response envelope of every `/api` route (spec 2.1). */
export interface Envelope<T> {
  success: boolean;
  message: string;
  data: T;
}

export function sendOk<T>(res: Response, data: T, message = "OK", status = 200): void {
  const body: Envelope<T> = { success: true, message, data };
  res.status(status).json(body);
}
