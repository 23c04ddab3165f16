/**
 * Facts of common models of the providers prx names: context window and longest reply in tokens, image and audio
 * input, and list prices in USD per million tokens (input, output, cached input) as each vendor publishes them.
 * Prices change: `[providers.<name>.model_info."<model>"]` overrides any fact here. First match wins, so a more
 * specific pattern comes before a broader one of the same family.
 */
export interface ModelTableRow {
  readonly pattern: RegExp;
  readonly context_window: number;
  readonly max_output_tokens: number;
  readonly vision: boolean;
  readonly audio: boolean;
  readonly prices: readonly [input: number, output: number, cachedInput: number | null] | null;
}

const row = (
  pattern: RegExp,
  context_window: number,
  max_output_tokens: number,
  vision: boolean,
  prices: ModelTableRow["prices"],
  audio = false,
): ModelTableRow => ({ pattern, context_window, max_output_tokens, vision, audio, prices });

const K = 1024;
const GEMINI_WINDOW = 1_048_576;
const GPT41_WINDOW = 1_047_576;

export const MODEL_TABLE: readonly ModelTableRow[] = [
  // OpenAI
  row(/^gpt-5(\.\d+)?-nano/, 400_000, 128_000, true, [0.05, 0.4, 0.005]),
  row(/^gpt-5(\.\d+)?-mini/, 400_000, 128_000, true, [0.25, 2, 0.025]),
  row(/^gpt-5/, 400_000, 128_000, true, [1.25, 10, 0.125]),
  row(/^gpt-4\.1-nano/, GPT41_WINDOW, 32_768, true, [0.1, 0.4, 0.025]),
  row(/^gpt-4\.1-mini/, GPT41_WINDOW, 32_768, true, [0.4, 1.6, 0.1]),
  row(/^gpt-4\.1/, GPT41_WINDOW, 32_768, true, [2, 8, 0.5]),
  row(/^gpt-4o-mini-audio/, 128_000, 16_384, false, [0.15, 0.6, null], true),
  row(/^gpt-4o-audio/, 128_000, 16_384, false, [2.5, 10, null], true),
  row(/^gpt-4o-mini/, 128_000, 16_384, true, [0.15, 0.6, 0.075]),
  row(/^(chatgpt-)?gpt-4o/, 128_000, 16_384, true, [2.5, 10, 1.25]),
  row(/^gpt-4-turbo/, 128_000, 4_096, true, [10, 30, null]),
  row(/^gpt-4-32k/, 32_768, 4_096, false, [60, 120, null]),
  row(/^gpt-4(-0314|-0613)?$/, 8_192, 4_096, false, [30, 60, null]),
  row(/^gpt-3\.5/, 16_385, 4_096, false, [0.5, 1.5, null]),
  row(/^o4-mini/, 200_000, 100_000, true, [1.1, 4.4, 0.275]),
  row(/^o3-mini/, 200_000, 100_000, false, [1.1, 4.4, 0.55]),
  row(/^o3/, 200_000, 100_000, true, [2, 8, 0.5]),
  row(/^o1-mini/, 128_000, 65_536, false, [1.1, 4.4, 0.55]),
  row(/^o1/, 200_000, 100_000, true, [15, 60, 7.5]),
  // Anthropic
  row(/^claude-opus-4-[5-9]/, 200_000, 64_000, true, [5, 25, 0.5]),
  row(/^claude-(opus-4|4-opus)/, 200_000, 32_000, true, [15, 75, 1.5]),
  row(/^claude-(sonnet-4|4-sonnet|3-7-sonnet)/, 200_000, 64_000, true, [3, 15, 0.3]),
  row(/^claude-haiku-4/, 200_000, 64_000, true, [1, 5, 0.1]),
  row(/^claude-3-5-haiku/, 200_000, 8_192, true, [0.8, 4, 0.08]),
  row(/^claude-3-5-sonnet/, 200_000, 8_192, true, [3, 15, 0.3]),
  row(/^claude-3-opus/, 200_000, 4_096, true, [15, 75, 1.5]),
  row(/^claude-3-haiku/, 200_000, 4_096, true, [0.25, 1.25, 0.03]),
  row(/^claude-(instant|2)/, 100_000, 4_096, false, null),
  // Google Gemini (OpenAI-compatible endpoint)
  row(/^gemini-2\.5-pro/, GEMINI_WINDOW, 65_536, true, [1.25, 10, 0.31], true),
  row(/^gemini-2\.5-flash-lite/, GEMINI_WINDOW, 65_536, true, [0.1, 0.4, 0.025], true),
  row(/^gemini-2\.5-flash/, GEMINI_WINDOW, 65_536, true, [0.3, 2.5, 0.075], true),
  row(/^gemini-2\.0-flash-lite/, GEMINI_WINDOW, 8_192, true, [0.075, 0.3, null], true),
  row(/^gemini-2\.0-flash/, GEMINI_WINDOW, 8_192, true, [0.1, 0.4, 0.025], true),
  row(/^gemini-/, GEMINI_WINDOW, 8_192, true, null, true),
  // DeepSeek
  row(/^deepseek-reasoner/, 128_000, 64_000, false, [0.28, 0.42, 0.028]),
  row(/^deepseek-(chat|coder)/, 128_000, 8_192, false, [0.28, 0.42, 0.028]),
  // Groq-hosted and local Llama families (local models have no price)
  row(/^llama-3\.3-70b-versatile/, 131_072, 32_768, false, [0.59, 0.79, null]),
  row(/^llama-3\.1-8b-instant/, 131_072, 131_072, false, [0.05, 0.08, null]),
  row(/^(meta-llama\/)?llama-?4/i, 131_072, 8_192, true, null),
  row(/^(meta-llama\/)?llama-?3\.2[-:]?(11|90)b-vision/i, 128_000, 8_192, true, null),
  row(/^(meta-llama\/)?llama-?3(\.[0-3])?[-:]/i, 128_000, 8_192, false, null),
  row(/^(meta-llama\/)?llama-?3(\.[0-3])?$/i, 128_000, 8_192, false, null),
  // Mistral
  row(/^mistral-large/, 131_072, 8_192, false, [2, 6, null]),
  row(/^mistral-medium/, 131_072, 8_192, true, [0.4, 2, null]),
  row(/^mistral-small/, 131_072, 8_192, true, [0.1, 0.3, null]),
  row(/^mistral(-tiny|:7b)/, 32_768, 8_192, false, null),
  row(/^codestral/, 256_000, 8_192, false, [0.3, 0.9, null]),
  row(/^qwen2?\.?5?-coder/, 32_768, 8_192, false, null),
  // prx's own offline provider
  row(/^offline$/, 32 * K, 4 * K, false, [0, 0, 0]),
];
