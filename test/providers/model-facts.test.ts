import { describe, expect, test } from "bun:test";
import { ConfigSchema } from "../../src/config/schema.ts";
import { MODEL_TABLE } from "../../src/providers/model-table.ts";
import {
  modelFacts,
  TABLE_ROWS_KEPT_MAX,
  tableRowsKept,
  UNKNOWN_MODEL_CONTEXT_WINDOW,
  UNKNOWN_MODEL_MAX_OUTPUT_TOKENS,
} from "../../src/providers/model-facts.ts";

const withInfo = (modelInfo: Record<string, unknown>) =>
  ConfigSchema.parse({ providers: { p: { models: [], model_info: modelInfo } } });

describe("model facts", () => {
  test("the built-in table and config say which models see images", () => {
    const config = withInfo({ "gpt-4o": { vision: false } });
    expect(modelFacts(config, "p", "gpt-4o").vision).toBe(false);
    expect(modelFacts(config, "q", "gpt-4o").vision).toBe(true);
    expect(modelFacts(config, "q", "gpt-3.5-turbo").vision).toBe(false);
    expect(modelFacts(config, "q", "openai/gpt-3.5-turbo").vision).toBe(false);
    expect(modelFacts(config, "q", "claude-sonnet-4-5").vision).toBe(true);
    expect(modelFacts(config, "offline", "offline").vision).toBe(false);
  });

  test("a known model has its window and prices; a more specific family wins over a broader one", () => {
    const config = withInfo({});
    const mini = modelFacts(config, "openai", "gpt-4o-mini");
    expect(mini).toMatchObject({ context_window: 128_000, max_output_tokens: 16_384, source: "built-in" });
    expect(mini.prices).toEqual({ input_per_mtok: 0.15, output_per_mtok: 0.6, cached_input_per_mtok: 0.075 });
    expect(modelFacts(config, "openai", "gpt-4o").prices?.input_per_mtok).toBe(2.5);
    expect(modelFacts(config, "anthropic", "claude-haiku-4-5").max_output_tokens).toBe(64_000);
    expect(modelFacts(config, "router", "openrouter/anthropic/claude-3-5-haiku-latest").context_window).toBe(200_000);
    expect(modelFacts(config, "ollama", "meta-llama/llama-3.1-8b").vision).toBe(false);
  });

  test("an unknown model gets the conservative defaults and says so", () => {
    const facts = modelFacts(withInfo({}), "p", "my-finetune-v7");
    expect(facts).toEqual({
      context_window: UNKNOWN_MODEL_CONTEXT_WINDOW,
      max_output_tokens: UNKNOWN_MODEL_MAX_OUTPUT_TOKENS,
      vision: true,
      audio: false,
      prices: null,
      source: "default",
    });
  });

  test("config overrides each fact on its own and keeps the rest of the table's", () => {
    const config = withInfo({ "gpt-4o-mini": { context_window: 8_000, output_per_mtok: 1 } });
    const facts = modelFacts(config, "p", "gpt-4o-mini");
    expect(facts).toMatchObject({ context_window: 8_000, max_output_tokens: 16_384, vision: true, source: "config" });
    expect(facts.prices).toEqual({ input_per_mtok: 0.15, output_per_mtok: 1, cached_input_per_mtok: 0.075 });
  });

  test("a price is counted only when both input and output prices are known", () => {
    expect(modelFacts(withInfo({ local: { input_per_mtok: 1 } }), "p", "local").prices).toBeNull();
    const both = modelFacts(withInfo({ local: { input_per_mtok: 1, output_per_mtok: 2 } }), "p", "local");
    expect(both.prices).toEqual({ input_per_mtok: 1, output_per_mtok: 2, cached_input_per_mtok: null });
  });

  test("model_info is validated: a window below 1024 tokens or an unknown key is refused naming its path", () => {
    expect(() => withInfo({ m: { context_window: 1024 } })).not.toThrow();
    expect(() => withInfo({ m: { context_window: 1023 } })).toThrow(/context_window/);
    expect(() => withInfo({ m: { context: 8000 } })).toThrow(/context/);
    expect(() => withInfo({ m: { input_per_mtok: -1 } })).toThrow(/input_per_mtok/);
  });

  test("every row of the table is sane: the reply fits the window, prices are not negative", () => {
    for (const row of MODEL_TABLE) {
      expect(row.max_output_tokens).toBeLessThanOrEqual(row.context_window);
      for (const price of row.prices ?? []) if (price !== null) expect(price).toBeGreaterThanOrEqual(0);
    }
  });
});

test("a kept answer is the same as a first one: a model with no row stays unknown, a known one keeps its row", () => {
  const config = withInfo({});
  expect(modelFacts(config, "p", "no-such-model-again").source).toBe("default");
  expect(modelFacts(config, "p", "no-such-model-again").source).toBe("default");
  expect(modelFacts(config, "p", "claude-haiku-4-5").max_output_tokens).toBe(64_000);
  expect(modelFacts(config, "p", "claude-haiku-4-5").max_output_tokens).toBe(64_000);
});

test("the table rows of at most TABLE_ROWS_KEPT_MAX model names are kept; past that a name is looked up each time", () => {
  const config = withInfo({});
  for (let i = 0; tableRowsKept() < TABLE_ROWS_KEPT_MAX; i++) modelFacts(config, "p", `kept-model-${i}`);
  expect(tableRowsKept()).toBe(TABLE_ROWS_KEPT_MAX);
  // one past the bound: still answered from the table, and not kept
  const past = modelFacts(config, "openai", "gpt-4o-mini-2099-01-01");
  expect(past).toMatchObject({ context_window: 128_000, source: "built-in" });
  expect(past.prices?.input_per_mtok).toBe(0.15);
  expect(modelFacts(config, "p", "kept-model-past-the-bound").source).toBe("default");
  expect(tableRowsKept()).toBe(TABLE_ROWS_KEPT_MAX);
});
