/** Where the server is, parsed without `URL` (the mini-game runtimes have none). */
export interface Endpoint {
  hostname: string;
  port: number;
  secure: boolean;
  /** Without a trailing slash; "" at the root. */
  pathname: string;
  /** `http(s)://host[:port][/path]`, the base of every HTTP route. */
  httpBase: string;
}

const SERVER_URL = /^(https?|wss?):\/\/(\[[^\]]+\]|[^/:?#]+)(?::(\d{1,5}))?(\/[^?#]*)?$/i;

export function parseEndpoint(server: string): Endpoint {
  const match = SERVER_URL.exec(server.trim());
  if (!match) throw new Error(`server must be an http(s):// address, got "${server}"`);
  const scheme = match[1].toLowerCase();
  const secure = scheme === "https" || scheme === "wss";
  const port = match[3] ? Number(match[3]) : secure ? 443 : 80;
  const pathname = (match[4] ?? "").replace(/\/+$/, "");
  const defaultPort = secure ? 443 : 80;
  const httpBase = `${secure ? "https" : "http"}://${match[2]}${port === defaultPort ? "" : `:${port}`}${pathname}`;
  return { hostname: match[2], port, secure, pathname, httpBase };
}

/** `a=1&b=2` from the defined values, percent-encoded (no URLSearchParams either). */
export function queryString(params: Record<string, string | undefined>): string {
  return Object.keys(params)
    .filter((key) => params[key] !== undefined && params[key] !== "")
    .map((key) => `${encodeURIComponent(key)}=${encodeURIComponent(params[key] as string)}`)
    .join("&");
}
