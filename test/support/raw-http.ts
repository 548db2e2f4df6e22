/**
 * HTTP requests exactly as written: fetch would normalise `//api` and `\` in paths, refuse TRACE,
 * and cannot stream a body of unknown length.
 */
import http from "node:http";

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, or undefined. */
  json: any;
}

export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** Sent as is; an array is sent chunk by chunk without Content-Length. */
  body?: Buffer | string | Buffer[];
  /** Fail instead of waiting longer than this for the answer. */
  timeoutMs?: number;
}

export function rawRequest(baseUrl: string, request: RawRequest): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, method: request.method, path: request.path, headers: request.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on("error", reject);
    });
    req.setTimeout(request.timeoutMs ?? 5000, () => req.destroy(new Error(`no answer to ${request.method} ${request.path} within ${request.timeoutMs ?? 5000} ms`)));
    // The server may answer and close before a large body is sent; the answer is what counts.
    req.on("error", (err) => ((err as NodeJS.ErrnoException).code === "EPIPE" || (err as NodeJS.ErrnoException).code === "ECONNRESET" ? undefined : reject(err)));
    if (Array.isArray(request.body)) {
      for (const chunk of request.body) req.write(chunk);
      req.end();
    } else {
      req.end(request.body);
    }
  });
}
