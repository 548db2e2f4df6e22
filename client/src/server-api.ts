import type { Endpoint } from "./endpoint";
import { ApiError } from "./errors";
import type { HttpRequest, HttpResponse, Runtime } from "./runtime";

export interface ApiRequest {
  method: HttpRequest["method"];
  path: string;
  body?: unknown;
  /** The access token, sent as Bearer; none for the login and refresh routes. */
  token?: string;
  /** More request headers (e.g. If-None-Match). */
  headers?: Record<string, string>;
}

/** A conditional GET's answer: 304 (what the caller holds is current), or the data with its ETag. */
export type ConditionalAnswer<T> = { notModified: true } | { notModified: false; data: T; etag: string | undefined };

interface Envelope {
  success?: boolean;
  message?: string;
  data?: any;
}

/** This server's HTTP routes through the runtime's request function (the mini-game runtimes have no fetch). */
export class ServerApi {
  constructor(
    private readonly runtime: Runtime,
    private readonly endpoint: Endpoint,
  ) {}

  /** The envelope's `data` on success, an ApiError otherwise. */
  async call(request: ApiRequest): Promise<any> {
    return this.data(await this.send(request));
  }

  /** A GET that sends `etag` in If-None-Match: a 304 is no error, it means "unchanged". */
  async conditional<T>(request: ApiRequest, etag: string | undefined): Promise<ConditionalAnswer<T>> {
    const response = await this.send({ ...request, headers: { ...request.headers, ...(etag ? { "If-None-Match": etag } : {}) } });
    if (response.status === 304) return { notModified: true };
    return { notModified: false, data: this.data(response) as T, etag: response.headers?.etag };
  }

  private async send(request: ApiRequest): Promise<HttpResponse> {
    const headers: Record<string, string> = { Accept: "application/json", ...request.headers };
    if (request.token) headers.Authorization = `Bearer ${request.token}`;
    if (request.body !== undefined) headers["Content-Type"] = "application/json";
    let response;
    try {
      response = await this.runtime.request({
        method: request.method,
        url: this.endpoint.httpBase + request.path,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
      });
    } catch (err) {
      throw new ApiError(0, "network_error", err instanceof Error ? err.message : String(err));
    }
    return response;
  }

  private data(response: HttpResponse): any {
    const envelope = (response.data && typeof response.data === "object" ? response.data : {}) as Envelope;
    if (response.status >= 200 && response.status < 300 && envelope.success !== false) return envelope.data;
    const code = typeof envelope.data?.code === "string" ? envelope.data.code : `http_${response.status}`;
    throw new ApiError(response.status, code, envelope.message ?? `HTTP ${response.status}`, envelope.data ?? null);
  }
}
