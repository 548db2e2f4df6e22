import { ServerError } from "@colyseus/sdk";
import type { Runtime } from "../runtime";

type Method = "GET" | "POST" | "PUT" | "DELETE";
interface RequestOptions {
  headers?: Record<string, string>;
  body?: unknown;
}

/**
 * Stands in for @colyseus/sdk's `client.http` (which needs `fetch`, `Headers` and `URLSearchParams`,
 * none of which a mini-game runtime has). The SDK uses it for the matchmake POST only; the answers
 * and errors have the same shape: `{ data, status }`, or a `ServerError(status, body.error)` for an
 * answer that is not 2xx (Colyseus 0.18 answers a refused join with the refusal's code as the status).
 *
 * `authToken` stays unset on purpose: the SDK would copy it into the socket URL (`_authToken=`),
 * where proxies log it. The token travels as the `accessToken` join option.
 */
export class RuntimeHttp {
  /** Read by the SDK: headers for every request, and for the room socket (which ignores them in every runtime but Node's). */
  readonly options: { headers: Record<string, string> } = { headers: {} };
  authToken: string | undefined = undefined;

  constructor(
    private readonly urlOf: (path: string) => string,
    private readonly runtime: Runtime,
  ) {}

  get(path: string, options: RequestOptions = {}) {
    return this.request("GET", path, options);
  }
  post(path: string, options: RequestOptions = {}) {
    return this.request("POST", path, options);
  }
  put(path: string, options: RequestOptions = {}) {
    return this.request("PUT", path, options);
  }
  delete(path: string, options: RequestOptions = {}) {
    return this.request("DELETE", path, options);
  }

  async request(method: Method, path: string, options: RequestOptions = {}): Promise<{ data: any; status: number }> {
    const body = options.body === undefined ? undefined : typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    const headers: Record<string, string> = { ...this.options.headers, ...options.headers };
    if (body !== undefined && !hasHeader(headers, "content-type")) headers["Content-Type"] = "application/json";
    const response = await this.runtime.request({ method, url: this.urlOf(path), headers, body });
    if (response.status >= 200 && response.status < 300) return { data: response.data, status: response.status };
    const data = response.data && typeof response.data === "object" ? (response.data as { error?: unknown; message?: unknown }) : {};
    const message = typeof data.message === "string" ? data.message : typeof data.error === "string" ? data.error : `HTTP ${response.status}`;
    throw new ServerError(response.status, message);
  }
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}
