import type { Config, ModelInfo } from "../config/schema.ts";
import { MODEL_TABLE, type ModelTableRow } from "./model-table.ts";

/** USD per million tokens. */
export interface ModelPrices {
  readonly input_per_mtok: number;
  readonly output_per_mtok: number;
  /** null: the vendor bills cached input as input */
  readonly cached_input_per_mtok: number | null;
}

export interface ModelFacts {
  readonly context_window: number;
  readonly max_output_tokens: number;
  readonly vision: boolean;
  readonly audio: boolean;
  /** null: the price is not known, so cost is not counted */
  readonly prices: ModelPrices | null;
  /** "default" when neither config nor the built-in table knows the model: `prx doctor` says so */
  readonly source: "config" | "built-in" | "default";
}

/** A model nothing is known of gets a small window, so prompts are kept short rather than refused upstream. */
export const UNKNOWN_MODEL_CONTEXT_WINDOW = 32_768;
export const UNKNOWN_MODEL_MAX_OUTPUT_TOKENS = 4_096;

/** The facts of `model` on `provider`: each fact from config first, then the built-in table, else the defaults. */
export function modelFacts(config: Config, provider: string, model: string): ModelFacts {
  const settings = config.providers[provider];
  const configured: ModelInfo | undefined = settings?.model_info[model];
  const offline = provider === "offline" || settings?.kind === "offline";
  const known = offline ? tableRow("offline") : tableRow(bareModelName(model));
  const base = known ? fromTable(known) : defaults(offline);
  if (!configured) return base;
  return {
    context_window: configured.context_window ?? base.context_window,
    max_output_tokens: configured.max_output_tokens ?? base.max_output_tokens,
    vision: configured.vision ?? base.vision,
    audio: configured.audio ?? base.audio,
    prices: configuredPrices(configured, base.prices),
    source: "config",
  };
}

/** Drops a routing prefix ("openrouter/anthropic/claude-...") but keeps "meta-llama/" that names the family. */
export function bareModelName(model: string): string {
  if (!model.includes("/") || model.startsWith("meta-llama/")) return model;
  return model.slice(model.lastIndexOf("/") + 1);
}

/** Model names whose table row is kept (a provider names the model it answered with; past this, looked up each time). */
export const TABLE_ROWS_KEPT_MAX = 256;

/** The table's row per model name, null for none: a turn asks for its model's facts several times, each a regex scan. */
const rowOf = new Map<string, ModelTableRow | null>();

/** How many model names' rows are kept (tests check the bound). */
export function tableRowsKept(): number {
  return rowOf.size;
}

function tableRow(model: string): ModelTableRow | undefined {
  const kept = rowOf.get(model);
  if (kept !== undefined) return kept ?? undefined;
  const found = MODEL_TABLE.find((candidate) => candidate.pattern.test(model)) ?? null;
  if (rowOf.size < TABLE_ROWS_KEPT_MAX) rowOf.set(model, found);
  return found ?? undefined;
}

function fromTable(known: ModelTableRow): ModelFacts {
  const prices = known.prices
    ? { input_per_mtok: known.prices[0], output_per_mtok: known.prices[1], cached_input_per_mtok: known.prices[2] }
    : null;
  return {
    context_window: known.context_window,
    max_output_tokens: known.max_output_tokens,
    vision: known.vision,
    audio: known.audio,
    prices,
    source: "built-in",
  };
}

function defaults(offline: boolean): ModelFacts {
  return {
    context_window: UNKNOWN_MODEL_CONTEXT_WINDOW,
    max_output_tokens: UNKNOWN_MODEL_MAX_OUTPUT_TOKENS,
    // an unknown model is sent images: most current models see them, and one that does not answers with an error
    vision: !offline,
    audio: false,
    prices: null,
    source: "default",
  };
}

function configuredPrices(configured: ModelInfo, base: ModelPrices | null): ModelPrices | null {
  const input = configured.input_per_mtok ?? base?.input_per_mtok;
  const output = configured.output_per_mtok ?? base?.output_per_mtok;
  if (input === undefined || output === undefined) return null;
  const cached = configured.cached_input_per_mtok ?? base?.cached_input_per_mtok ?? null;
  return { input_per_mtok: input, output_per_mtok: output, cached_input_per_mtok: cached };
}
