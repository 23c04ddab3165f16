import type { OpenAIChatResponse, OpenAIChunk } from "./openai-wire.ts";
import { isCount, isNumber, isPlainObject, isString, isStringOrNull, optional } from "../core/fast-accept/index.ts";

/**
 * The common chat completion (choices whose messages carry text and no tool calls) checked by hand in front of
 * OpenAIChatResponseSchema, which decides everything else and writes every error. What it buys, measured: in a
 * gateway turn at concurrency 1 (a turn every ~20 ms, so every parse runs with cold caches) the schema's parse was
 * ~12 % of the main thread's time (`BUN_OPTIONS=--cpu-prof`, the turn-overhead series of `bun run bench gateway`),
 * the largest part of prx's own work on that path. It accepts only what the schema accepts and returns it as the
 * schema would, unknown keys left out (test/providers/openai-response-accept.test.ts runs both on one corpus); null
 * means "ask the schema".
 */
export function acceptTextResponse(value: unknown): OpenAIChatResponse | null {
  if (!isPlainObject(value)) return null;
  const { id, object, created, model, choices, usage } = value;
  if (!optional(id, isString) || !optional(object, isString) || !optional(created, isNumber) || !optional(model, isString)) return null;
  if (!Array.isArray(choices) || choices.length === 0) return null;
  const outChoices: OpenAIChatResponse["choices"] = [];
  for (const choice of choices) {
    const accepted = acceptChoice(choice);
    if (!accepted) return null;
    outChoices.push(accepted);
  }
  const out: OpenAIChatResponse = { choices: outChoices };
  if (id !== undefined) out.id = id as string;
  if (object !== undefined) out.object = object as string;
  if (created !== undefined) out.created = created as number;
  if (model !== undefined) out.model = model as string;
  if (usage !== undefined) {
    const accepted = acceptUsage(usage);
    if (accepted === REJECTED) return null;
    out.usage = accepted;
  }
  return out;
}

/**
 * The common stream chunk (a text delta, a finish reason, the closing usage) checked by hand in front of
 * OpenAIChunkSchema, as acceptTextResponse is in front of the response's schema: a streamed turn parses several chunks,
 * and the schema's parses were 2-3 % of a gateway turn's main-thread samples (`BUN_OPTIONS=--cpu-prof` under the load of
 * `bench scaleout`). Tool-call deltas and in-stream errors are the schema's; null means "ask the schema".
 */
export function acceptTextChunk(value: unknown): OpenAIChunk | null {
  if (!isPlainObject(value)) return null;
  const { id, object, created, model, choices, usage, error } = value;
  if (error !== undefined) return null;
  if (!optional(id, isString) || !optional(object, isString) || !optional(created, isNumber) || !optional(model, isString)) return null;
  const out: OpenAIChunk = {};
  if (id !== undefined) out.id = id as string;
  if (object !== undefined) out.object = object as string;
  if (created !== undefined) out.created = created as number;
  if (model !== undefined) out.model = model as string;
  if (choices === null) out.choices = null;
  else if (choices !== undefined) {
    if (!Array.isArray(choices)) return null;
    const outChoices: NonNullable<OpenAIChunk["choices"]> = [];
    for (const choice of choices) {
      const accepted = acceptChunkChoice(choice);
      if (!accepted) return null;
      outChoices.push(accepted);
    }
    out.choices = outChoices;
  }
  if (usage !== undefined) {
    const accepted = acceptUsage(usage);
    if (accepted === REJECTED) return null;
    out.usage = accepted;
  }
  return out;
}

type ChunkChoice = NonNullable<OpenAIChunk["choices"]>[number];

function acceptChunkChoice(choice: unknown): ChunkChoice | null {
  if (!isPlainObject(choice)) return null;
  const { index, delta, finish_reason } = choice;
  if (!optional(index, Number.isSafeInteger) || !optional(finish_reason, isStringOrNull)) return null;
  const out: ChunkChoice = {};
  if (index !== undefined) out.index = index as number;
  if (delta === null) out.delta = null;
  else if (delta !== undefined) {
    if (!isPlainObject(delta)) return null;
    const { role, content, tool_calls } = delta;
    // tool call deltas are the schema's to check
    if (tool_calls !== undefined || !optional(role, isStringOrNull) || !optional(content, isStringOrNull)) return null;
    const outDelta: NonNullable<ChunkChoice["delta"]> = {};
    if (role !== undefined) outDelta.role = role as string | null;
    if (content !== undefined) outDelta.content = content as string | null;
    out.delta = outDelta;
  }
  if (finish_reason !== undefined) out.finish_reason = finish_reason as string | null;
  return out;
}

const REJECTED = Symbol("rejected");
type Usage = NonNullable<OpenAIChatResponse["usage"]>;

/** OpenAIUsageSchema's check of a present `usage` (null allowed), or REJECTED. */
function acceptUsage(usage: unknown): Usage | null | typeof REJECTED {
  if (usage === null) return null;
  if (!isPlainObject(usage)) return REJECTED;
  const { prompt_tokens, completion_tokens, total_tokens } = usage;
  if (!isCount(prompt_tokens) || !isCount(completion_tokens) || !isCount(total_tokens)) return REJECTED;
  const out: Usage = { prompt_tokens, completion_tokens, total_tokens };
  const details = usage.prompt_tokens_details;
  if (details === null) out.prompt_tokens_details = null;
  else if (details !== undefined) {
    if (!isPlainObject(details)) return REJECTED;
    const cached = details.cached_tokens;
    if (cached !== undefined && cached !== null && !isCount(cached)) return REJECTED;
    out.prompt_tokens_details = cached === undefined ? {} : { cached_tokens: cached };
  }
  return out;
}

type Choice = OpenAIChatResponse["choices"][number];

function acceptChoice(choice: unknown): Choice | null {
  if (!isPlainObject(choice)) return null;
  const { index, message, finish_reason } = choice;
  if (!optional(index, Number.isSafeInteger) || !optional(finish_reason, isStringOrNull) || !isPlainObject(message)) return null;
  const { role, content, tool_calls } = message;
  // tool calls are the schema's to check
  if (tool_calls !== undefined || !optional(role, isString) || !optional(content, isStringOrNull)) return null;
  const outMessage: Choice["message"] = {};
  if (role !== undefined) outMessage.role = role as string;
  if (content !== undefined) outMessage.content = content as string | null;
  const out: Choice = { message: outMessage };
  if (index !== undefined) out.index = index as number;
  if (finish_reason !== undefined) out.finish_reason = finish_reason as string | null;
  return out;
}
