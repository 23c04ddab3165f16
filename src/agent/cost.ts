import type { Config } from "../config/schema.ts";
import { modelFacts, type ModelPrices } from "../providers/model-facts.ts";
import type { Usage } from "../providers/types.ts";
import type { MessageUsage } from "../storage/types.ts";
import { cachedTokens } from "./usage.ts";

const PER_MILLION = 1_000_000;

/** Prices per config (a reload brings a new one) and "<provider>\0<model>": modelFacts scans the table, a turn need not. */
const pricesOf = new WeakMap<Config, Map<string, ModelPrices | null>>();
/** Models whose prices a config keeps at most (a provider names the model it answered with; past this, not kept). */
export const PRICES_KEPT_MAX = 256;

/** How many models' prices `config` keeps (tests check the bound). */
export function pricesKept(config: Config): number {
  return pricesOf.get(config)?.size ?? 0;
}

function prices(config: Config, provider: string, model: string): ModelPrices | null {
  let known = pricesOf.get(config);
  if (!known) pricesOf.set(config, (known = new Map()));
  const key = `${provider}\u0000${model}`;
  let found = known.get(key);
  if (found !== undefined) return found;
  found = modelFacts(config, provider, model).prices;
  if (known.size < PRICES_KEPT_MAX) known.set(key, found);
  return found;
}

/**
 * The usage of one model call as kept with its message, with its cost from the model's prices (config, then the
 * built-in table): uncached input at the input price, cached input at the cached price (the input price when the
 * vendor has none), output at the output price. Unknown prices: cost null.
 */
export function messageUsage(config: Config, provider: string, model: string, usage: Usage): MessageUsage {
  const cached = Math.min(cachedTokens(usage), usage.prompt_tokens);
  const price = prices(config, provider, model);
  let cost: number | null = null;
  if (price) {
    const cachedPrice = price.cached_input_per_mtok ?? price.input_per_mtok;
    cost =
      ((usage.prompt_tokens - cached) * price.input_per_mtok + cached * cachedPrice + usage.completion_tokens * price.output_per_mtok) /
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
