import { expect, test } from "bun:test";
import { messageUsage, PRICES_KEPT_MAX, pricesKept } from "../../src/agent/cost.ts";
import { ConfigSchema } from "../../src/config/schema.ts";

test("cost: uncached input, cached input at its price, output; unknown prices cost null", () => {
  const config = ConfigSchema.parse({ providers: { p: { model_info: { m: { input_per_mtok: 2, cached_input_per_mtok: 0.5, output_per_mtok: 8 } } } } });
  const usage = { prompt_tokens: 1_000_000, completion_tokens: 500_000, total_tokens: 1_500_000, prompt_tokens_details: { cached_tokens: 400_000 } };
  expect(messageUsage(config, "p", "m", usage)).toEqual({
    provider: "p", model: "m", input_tokens: 1_000_000, output_tokens: 500_000, cached_input_tokens: 400_000, cost_usd: 1.2 + 0.2 + 4,
  });
  expect(messageUsage(config, "p", "never-heard-of", usage).cost_usd).toBeNull();
  // gpt-4o-mini of the built-in table: $0.15 in, $0.075 cached, $0.60 out
  expect(messageUsage(config, "openai", "gpt-4o-mini", usage).cost_usd).toBeCloseTo(0.6 * 0.15 + 0.4 * 0.075 + 0.5 * 0.6, 12);
});

test("a config keeps the prices of at most PRICES_KEPT_MAX models; past that they are looked up each time", () => {
  const config = ConfigSchema.parse({});
  const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
  for (let i = 0; i < PRICES_KEPT_MAX; i++) messageUsage(config, "p", `model-${i}`, usage);
  expect(pricesKept(config)).toBe(PRICES_KEPT_MAX);
  expect(messageUsage(config, "openai", "gpt-4o-mini", usage).cost_usd).toBeCloseTo((0.15 + 0.6) / 1e6, 15);
  expect(pricesKept(config)).toBe(PRICES_KEPT_MAX);
});
