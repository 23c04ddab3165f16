import { readBoundedText } from "../core/bounded-body.ts";
import { PrxError } from "../core/errors.ts";
import { jsonDepthError, parseJsonBounded } from "../core/json/index.ts";
import { excerpt, tooLarge } from "./response-errors.ts";
import { PROVIDER_MAX_RESPONSE_BYTES } from "./sse.ts";

export { missingKeyError } from "./key-error.ts";

/** How much of a provider's error body an error message quotes. */
export const PROVIDER_ERROR_EXCERPT_CHARS = 300;
/** Timeout of a reachability probe (capped by the provider's own timeout). */
export const PROVIDER_PROBE_TIMEOUT_MS = 5_000;

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** What an HTTP provider needs to know to describe its failures. */
export interface HttpTarget {
  provider: string;
  /** Environment variable holding the key, for hints. */
  keyEnv?: string;
}

/**
 * One in-flight provider request: merges the caller's AbortSignal with an idle timeout that restarts on
 * every received chunk (timeout_ms bounds the wait for the response head and for each next chunk), and
 * turns whatever fetch throws into a PrxError that says which of the two fired.
 */
export class ProviderCall {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timedOut = false;
  private readonly onAbort = () => this.controller.abort(this.userSignal?.reason);

  constructor(
    readonly target: HttpTarget,
    readonly timeoutMs: number,
    private readonly userSignal?: AbortSignal,
  ) {
    this.signal = this.controller.signal;
    if (userSignal?.aborted) this.controller.abort(userSignal.reason);
    else userSignal?.addEventListener("abort", this.onAbort, { once: true });
    this.touch();
  }

  /** Restart the idle timer (progress was made). */
  touch(): void {
    if (this.controller.signal.aborted) return;
    if (this.timer) {
      this.timer.refresh();
      return;
    }
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new DOMException("provider timeout", "TimeoutError"));
    }, this.timeoutMs);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.userSignal?.removeEventListener("abort", this.onAbort);
  }

  /** Map a thrown value to a PrxError, keeping PrxErrors as they are. */
  fail(error: unknown, url: string): PrxError {
    const provider = this.target.provider;
    if (error instanceof PrxError) return error;
    if (this.timedOut) {
      return new PrxError("PROVIDER_TIMEOUT", `${provider}: no answer from ${url} within ${this.timeoutMs} ms`, {
        hint: `raise timeout_ms in [providers.${provider}] or check that the server is healthy`,
        status: 504,
        details: { provider },
        cause: error,
      });
    }
    if (this.userSignal?.aborted) {
      return new PrxError("ABORTED", `${provider}: request cancelled`, { cause: error, details: { provider } });
    }
    const message = error instanceof Error ? error.message : String(error);
    return new PrxError("PROVIDER_UNREACHABLE", `${provider}: cannot reach ${url}: ${message}`, {
      hint: `check base_url in [providers.${provider}] and your network`,
      status: 502,
      details: { provider },
      cause: error,
    });
  }

  /** fetch with this call's signal; non-2xx answers become PROVIDER_HTTP errors. */
  async fetch(fetchImpl: FetchLike, url: string, init: RequestInit): Promise<Response> {
    let response: Response;
    try {
      response = await fetchImpl(url, { ...init, signal: this.signal });
    } catch (error) {
      throw this.fail(error, url);
    }
    this.touch();
    if (!response.ok) {
      const body = await this.readText(response, url).catch(() => "");
      throw httpError(this.target, url, response.status, body, response.headers);
    }
    return response;
  }

  /** Read a whole body as text (streamed), refusing more than maxBytes; the idle timer restarts with every chunk. */
  async readText(response: Response, url: string, maxBytes = PROVIDER_MAX_RESPONSE_BYTES): Promise<string> {
    return readBoundedText(response, {
      maxBytes,
      signal: this.signal,
      signalEndsBody: true,
      onChunk: () => this.touch(),
      errors: {
        tooLarge: (max) => tooLarge(this.target.provider, max),
        aborted: (reason) => this.fail(reason, url),
        failed: (cause) => this.fail(cause, url),
      },
    });
  }

  /**
   * Read and parse a JSON body, refusing one nested deeper than MAX_JSON_DEPTH before it is parsed; a non-JSON answer
   * (a proxy's HTML error page) is quoted in the error.
   */
  async readJson(response: Response, url: string, maxBytes = PROVIDER_MAX_RESPONSE_BYTES): Promise<unknown> {
    const text = await this.readText(response, url, maxBytes);
    const deep = jsonDepthError(text, `response from ${url}`);
    if (deep) throw protocolError(this.target.provider, deep.message);
    try {
      return JSON.parse(text);
    } catch (error) {
      throw protocolError(this.target.provider, `response from ${url} is not valid JSON (${(error as Error).message}): ${excerpt(text)}`);
    }
  }
}

export function protocolError(provider: string, what: string): PrxError {
  return new PrxError("PROVIDER_PROTOCOL", `${provider}: ${what}`, {
    hint: `check base_url and kind in [providers.${provider}]`,
    status: 502,
    details: { provider },
  });
}

/**
 * Parse a Retry-After header: delay-seconds or an HTTP date. Returns milliseconds (never negative),
 * or undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** The most useful part of a provider error body: the JSON error message when there is one. */
export function errorBodyExcerpt(body: string): string {
  try {
    const json = parseJsonBounded(body, "error body") as Record<string, any>;
    const candidates = [json?.error?.message, json?.message, json?.error, json?.detail];
    const found = candidates.find((value) => typeof value === "string" && value.length > 0);
    if (found) return excerpt(found, PROVIDER_ERROR_EXCERPT_CHARS);
  } catch {
    // not JSON (or nested too deeply to read): quote the raw text
  }
  return excerpt(body, PROVIDER_ERROR_EXCERPT_CHARS);
}

export function hintForStatus(target: HttpTarget, status: number): string {
  const section = `[providers.${target.provider}]`;
  if (status === 401) {
    return target.keyEnv
      ? `check the key in $${target.keyEnv}`
      : `set api_key_env in ${section} to the environment variable holding your key`;
  }
  if (status === 403) {
    return `the key${target.keyEnv ? ` in $${target.keyEnv}` : ""} is not allowed this model or endpoint`;
  }
  if (status === 404) return `check base_url and the model name (models in ${section}, default_model)`;
  if (status === 408 || status === 429) {
    return "the provider is rate limiting: wait, or add [reliability] fallback_providers";
  }
  if (status >= 500) return "the provider is failing: retry later, or add [reliability] fallback_providers";
  return "the provider rejected the request: check the model name and the parameters it supports";
}

/** The PrxError for a non-2xx answer. */
export function httpError(target: HttpTarget, url: string, status: number, body: string, headers?: Headers): PrxError {
  const retryAfterMs = parseRetryAfter(headers?.get("retry-after"));
  const said = errorBodyExcerpt(body);
  const details: Record<string, unknown> = { status, provider: target.provider };
  if (retryAfterMs !== undefined) details.retryAfterMs = retryAfterMs;
  return new PrxError("PROVIDER_HTTP", `${target.provider}: HTTP ${status} from ${url}${said ? `: ${said}` : ""}`, {
    hint: hintForStatus(target, status),
    status: 502,
    details,
  });
}

/** Join a base URL and a path without doubling or losing slashes. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}
