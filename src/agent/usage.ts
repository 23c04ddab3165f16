import type { Usage } from "../providers/types.ts";

export const ZERO_USAGE: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/** Cached prompt tokens of a usage (0 when the provider reported none). */
export function cachedTokens(usage: Usage): number {
  return usage.prompt_tokens_details?.cached_tokens ?? 0;
}

/** Token usage of a turn: the sum over its provider calls (a call without usage adds nothing). */
export function addUsage(a: Usage, b: Usage | null | undefined): Usage {
  if (!b) return a;
  const sum: Usage = {
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
  };
  if (a.prompt_tokens_details || b.prompt_tokens_details) sum.prompt_tokens_details = { cached_tokens: cachedTokens(a) + cachedTokens(b) };
  return sum;
}
