/**
 * The providers' zod wire schemas load on the first provider call that parses an answer, not at start-up:
 * building them costs a few milliseconds of module evaluation that `prx gateway` would spend before listening.
 * An answer the hand checks accept (openai-response-accept.ts, anthropic-response-accept.ts) needs none: they load with
 * the first they do not, so a one-shot `prx agent -m` text turn loads neither them nor zod (with them, ~40% of its CPU).
 */
type OpenAIWire = typeof import("./openai-wire.ts");
type AnthropicWire = typeof import("./anthropic-wire.ts");

let openai: OpenAIWire | undefined;
let anthropic: AnthropicWire | undefined;

/** The module once loaded (no await on the per-turn path), else undefined. */
export const loadedOpenaiWire = (): OpenAIWire | undefined => openai;

export async function openaiWire(): Promise<OpenAIWire> {
  return openai ?? (openai = await import("./openai-wire.ts"));
}

/** The module once loaded (no await on the per-turn path), else undefined. */
export const loadedAnthropicWire = (): AnthropicWire | undefined => anthropic;

export async function anthropicWire(): Promise<AnthropicWire> {
  return anthropic ?? (anthropic = await import("./anthropic-wire.ts"));
}
