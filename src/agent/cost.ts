import type { Config } from "../config/schema.ts";
import { modelFacts } from "../providers/model-facts.ts";
import type { Usage } from "../providers/types.ts";
import type { MessageUsage } from "../storage/types.ts";
import { cachedTokens } from "./usage.ts";

const PER_MILLION = 1_000_000;

/**
 * The usage of one model call as kept with its message, with its cost from the model's prices (config, then the
 * built-in table): uncached input at the input price, cached input at the cached price (the input price when the
 * vendor has none), output at the output price. Unknown prices: cost null.
 */
export function messageUsage(config: Config, provider: string, model: string, usage: Usage): MessageUsage {
  const cached = Math.min(cachedTokens(usage), usage.prompt_tokens);
  const prices = modelFacts(config, provider, model).prices;
  let cost: number | null = null;
  if (prices) {
    const cachedPrice = prices.cached_input_per_mtok ?? prices.input_per_mtok;
    cost =
      ((usage.prompt_tokens - cached) * prices.input_per_mtok + cached * cachedPrice + usage.completion_tokens * prices.output_per_mtok) /
      PER_MILLION;
  }
  return {
    provider,
    model,
    input_tokens: usage.prompt_tokens,
    output_tokens: usage.completion_tokens,
    cached_input_tokens: cached,
    cost_usd: cost,
  };
}

/** Two usages of one message (calls whose answers were folded into it) as one; the later call names the model. */
export function addMessageUsage(a: MessageUsage | undefined, b: MessageUsage): MessageUsage {
  if (!a) return b;
  return {
    provider: b.provider,
    model: b.model,
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cached_input_tokens: a.cached_input_tokens + b.cached_input_tokens,
    cost_usd: a.cost_usd === null && b.cost_usd === null ? null : (a.cost_usd ?? 0) + (b.cost_usd ?? 0),
  };
}
