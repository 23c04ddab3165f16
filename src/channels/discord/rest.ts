import type { z } from "zod";
import { jsonDepthError, parseJsonBounded } from "../../core/json/index.ts";
import { sleep } from "../../core/supervise/index.ts";
import { retryAfterMs } from "../send-retries.ts";
import { PLATFORM_REQUEST_TIMEOUT_MS } from "../limits.ts";
import { PlatformError, retryableStatus } from "../platform-error.ts";
import { platformRequest } from "../platform-request.ts";
import { RateLimitBodySchema } from "./wire.ts";

export const DISCORD_DEFAULT_API = "https://discord.com/api/v10";

/**
 * Discord REST with its rate limits honoured (https://discord.com/developers/docs/topics/rate-limits): after an answer
 * with `X-RateLimit-Remaining: 0` the next request on that route waits `X-RateLimit-Reset-After`; a 429 carries
 * `retry_after` (seconds) in its body and is retried by the caller after that long (global ones too).
 */
export class DiscordRest {
  private readonly resetAt = new Map<string, number>();
  private globalUntil = 0;

  constructor(
    private readonly base: string,
    private readonly token: string,
    private readonly timeoutMs = PLATFORM_REQUEST_TIMEOUT_MS,
  ) {}

  /** `body` is sent as JSON, or as it is when it is FormData (a message with files). */
  async request<T>(method: string, path: string, body: unknown, schema: z.ZodType<T> | null, route: string, signal?: AbortSignal): Promise<T | null> {
    const form = body instanceof FormData;
    const wait = Math.max(this.resetAt.get(route) ?? 0, this.globalUntil) - Date.now();
    if (wait > 0) await sleep(wait, signal);
    const response = await platformRequest(
      "discord",
      `${method} ${path}`,
      `${this.base.replace(/\/$/, "")}${path}`,
      {
        method,
        headers: { authorization: `Bot ${this.token}`, ...(form ? {} : { "content-type": "application/json" }), "user-agent": "DiscordBot (prx, 0.1)" },
        body: body === undefined ? undefined : form ? body : JSON.stringify(body),
      },
      { timeoutMs: this.timeoutMs, signal },
    );
    const remaining = response.headers.get("x-ratelimit-remaining");
    const resetAfter = Number(response.headers.get("x-ratelimit-reset-after") ?? "NaN");
    if (remaining === "0" && Number.isFinite(resetAfter)) this.resetAt.set(route, Date.now() + resetAfter * 1000);
    const text = response.text;
    if (response.status === 429) {
      const parsed = RateLimitBodySchema.safeParse(safeJson(text));
      const ms = retryAfterMs(parsed.success ? parsed.data.retry_after : Number(response.headers.get("retry-after") ?? "1"), 1000);
      if (parsed.success && parsed.data.global) this.globalUntil = Date.now() + ms;
      throw new PlatformError("discord", `${method} ${path}: rate limited for ${ms} ms`, 429, true, ms);
    }
    if (!response.ok) {
      throw new PlatformError("discord", `${method} ${path}: HTTP ${response.status} ${text.slice(0, 200)}`, response.status, retryableStatus(response.status));
    }
    if (!schema) return null;
    const deep = jsonDepthError(text, "answer");
    if (deep) throw new PlatformError("discord", `${method} ${path}: ${deep.message}`, response.status, false);
    const parsed = schema.safeParse(safeJson(text));
    if (!parsed.success) throw new PlatformError("discord", `${method} ${path}: unexpected answer: ${parsed.error.issues[0]?.message}`, response.status, false);
    return parsed.data;
  }
}

function safeJson(text: string): unknown {
  try {
    return parseJsonBounded(text, "answer");
  } catch {
    return null; // not JSON (or nested too deeply): the callers' schema checks report it as an unexpected answer
  }
}
