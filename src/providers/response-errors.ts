import { PrxError } from "../core/errors.ts";

/** How much of an offending SSE line an error message quotes. */
export const SSE_LINE_EXCERPT_CHARS = 200;

export function excerpt(text: string, max = SSE_LINE_EXCERPT_CHARS): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}...` : flat;
}

export function tooLarge(provider: string, maxBytes: number, what = "response"): PrxError {
  return new PrxError("PROVIDER_RESPONSE_TOO_LARGE", `${provider}: ${what} exceeded ${maxBytes} bytes`, {
    hint: "lower max_tokens, or check that base_url points at a chat completions API",
    status: 502,
    details: { provider, maxBytes },
  });
}
