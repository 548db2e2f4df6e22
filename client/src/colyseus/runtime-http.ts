import { ServerError, type Client } from "colyseus.js";
import type { Runtime } from "../runtime";

type Method = "get" | "post" | "put" | "del";
interface RequestOptions {
  headers?: Record<string, string>;
  body?: unknown;
}

const METHODS: Record<Method, "GET" | "POST" | "PUT" | "DELETE"> = { get: "GET", post: "POST", put: "PUT", del: "DELETE" };

/**
 * Stands in for colyseus.js's `client.http` (which goes through httpie: XMLHttpRequest or Node's
 * http). colyseus.js uses it for the matchmake POST only; the answers and errors have the same
 * shape: `{ data }`, or a `ServerError(status, body.error)`.
 *
 * `authToken` stays unset on purpose: colyseus.js would copy it into the socket URL
 * (`_authToken=`), where proxies log it. The token travels as the `accessToken` join option.
 */
export class RuntimeHttp {
  headers: Record<string, string> = {};
  authToken: string | undefined = undefined;

  constructor(
    private readonly client: Client,
    private readonly runtime: Runtime,
  ) {}

  get(path: string, options: RequestOptions = {}) {
    return this.request("get", path, options);
  }
  post(path: string, options: RequestOptions = {}) {
    return this.request("post", path, options);
  }
  put(path: string, options: RequestOptions = {}) {
    return this.request("put", path, options);
  }
  del(path: string, options: RequestOptions = {}) {
    return this.request("del", path, options);
  }

  async request(method: Method, path: string, options: RequestOptions = {}): Promise<{ data: any; statusCode: number }> {
    const url = (this.client as unknown as { getHttpEndpoint(path: string): string }).getHttpEndpoint(path);
    const body = options.body === undefined ? undefined : typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    const headers: Record<string, string> = { ...this.headers, ...options.headers };
    if (body !== undefined && !hasHeader(headers, "content-type")) headers["Content-Type"] = "application/json";
    const response = await this.runtime.request({ method: METHODS[method], url, headers, body });
    if (response.status >= 200 && response.status < 300) return { data: response.data, statusCode: response.status };
    const error = response.data && typeof response.data === "object" ? (response.data as { error?: unknown }).error : undefined;
    throw new ServerError(response.status, typeof error === "string" ? error : `HTTP ${response.status}`);
  }
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}
