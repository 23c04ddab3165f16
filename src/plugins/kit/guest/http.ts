// @prx/kit/http: outbound HTTP through prx:host/http-outbound, which the tool, provider and storage worlds import.
// Needs the `http-outbound` grant in config.toml and the URL in `[permissions] http_allowlist`.
import { request as hostRequest } from "prx:host/http-outbound@0.1.0";
import { decode, encode } from "./utf8.ts";

export interface HttpRequest {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  /** A string is sent as UTF-8. */
  body?: string | Uint8Array;
}

export interface HttpResponse {
  status: number;
  ok: boolean;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: Uint8Array;
  text(): string;
  json<T = unknown>(): T;
}

/** One request; throws the host's message when it is refused (allowlist, grant, request count) or fails. */
export function request(req: HttpRequest): HttpResponse {
  const headers = Object.entries(req.headers ?? {});
  const body = req.body === undefined ? null : typeof req.body === "string" ? encode(req.body) : req.body;
  const response = hostRequest(req.method ?? "GET", req.url, headers, body);
  const names: Record<string, string> = {};
  for (const [name, value] of response.headers) names[name.toLowerCase()] = value;
  return {
    status: response.status,
    ok: response.status >= 200 && response.status < 300,
    headers: names,
    body: response.body,
    text: () => decode(response.body),
    json: <T>() => JSON.parse(decode(response.body)) as T,
  };
}

export const http = {
  request,
  get: (url: string, headers?: Record<string, string>): HttpResponse => request({ url, ...(headers ? { headers } : {}) }),
  /** POSTs `body` as JSON (content-type application/json). */
  postJson: (url: string, body: unknown, headers: Record<string, string> = {}): HttpResponse =>
    request({ method: "POST", url, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) }),
};
