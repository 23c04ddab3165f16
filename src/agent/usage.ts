import type { Usage } from "../providers/types.ts";

export const ZERO_USAGE: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/** Token usage of a turn: the sum over its provider calls (a call without usage adds nothing). */
export function addUsage(a: Usage, b: Usage | null | undefined): Usage {
  if (!b) return a;
  return {
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
  };
}
