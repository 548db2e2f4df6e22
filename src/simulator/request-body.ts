import type http from "node:http";

/** Real request bodies are a few hundred bytes; anything far larger is treated as malformed. */
export const MAX_BODY_BYTES = 64 * 1024;

/** A request's body as received (signed APIs check a signature over exactly those bytes); undefined when too large or broken off. */
export function readRawBody(req: http.IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on("end", () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString("utf8")));
    req.on("error", () => resolve(undefined));
  });
}
