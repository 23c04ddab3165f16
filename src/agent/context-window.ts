import type { Config } from "../config/schema.ts";
import type { ChatMessage, MediaRef, ToolSpec } from "../providers/types.ts";
import { modelFacts } from "../providers/model-facts.ts";
import { PROMPT_BYTES_PER_TOKEN, estimateTokens } from "./prompt.ts";

/**
 * The size of a prompt, estimated (the tokenizer is the provider's): UTF-8 bytes / PROMPT_BYTES_PER_TOKEN per text,
 * a fixed overhead per message, images by their size rule. The provider's reported prompt_tokens of the previous call
 * of the session corrects it (ContextRatios). Nothing here allocates per character: a turn pays a few microseconds.
 */

/** Role markers and separators a provider wraps around each message. */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** An image whose size is not known (about the most the common vision models charge for one). */
export const IMAGE_UNKNOWN_TOKENS = 1_600;
/** OpenAI's tile rule: a low-detail image, and the base and per-512-pixel-tile cost of a high-detail one. */
export const IMAGE_LOW_TOKENS = 85;
export const IMAGE_TILE_TOKENS = 170;
/** Audio a model hears itself (most audio becomes its transcript before the prompt). */
export const AUDIO_TOKENS_PER_SECOND = 32;
/** A learned correction ratio is kept within these bounds (one odd report cannot shrink or blow up every prompt). */
export const RATIO_MIN = 0.5;
export const RATIO_MAX = 3;
/** Sessions whose ratio a host remembers (the oldest is forgotten first). */
export const RATIO_SESSIONS_MAX = 1_024;
/** The reply's room is at most this share of the window (a model that may write 128k of a 200k window still reads). */
export const REPLY_ROOM_MAX_SHARE = 0.25;

export function imageTokens(ref: MediaRef): number {
  if (ref.detail === "low") return IMAGE_LOW_TOKENS;
  if (!ref.width || !ref.height) return IMAGE_UNKNOWN_TOKENS;
  // fit in 2048x2048, then the shortest side to 768, then count 512-pixel tiles
  let w = ref.width;
  let h = ref.height;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shrink = Math.min(1, 768 / Math.min(w, h));
  w *= shrink;
  h *= shrink;
  return IMAGE_LOW_TOKENS + IMAGE_TILE_TOKENS * Math.ceil(w / 512) * Math.ceil(h / 512);
}

function mediaTokens(media: readonly MediaRef[]): number {
  let sum = 0;
  for (const ref of media) sum += ref.kind === "image" ? imageTokens(ref) : Math.ceil((ref.seconds ?? 0) * AUDIO_TOKENS_PER_SECOND);
  return sum;
}

export function messageTokens(message: ChatMessage): number {
  let sum = MESSAGE_OVERHEAD_TOKENS + estimateTokens(message.content);
  if (message.tool_calls) for (const call of message.tool_calls) sum += estimateTokens(call.name) + estimateTokens(call.arguments);
  if (message.media) sum += mediaTokens(message.media);
  return sum;
}

/** Estimates of tool lists by identity: the registry answers the same array until its tools change. */
const toolListTokens = new WeakMap<readonly ToolSpec[], number>();

export function toolsTokens(tools: readonly ToolSpec[]): number {
  if (tools.length === 0) return 0;
  const known = toolListTokens.get(tools);
  if (known !== undefined) return known;
  let sum = 0;
  for (const tool of tools) sum += MESSAGE_OVERHEAD_TOKENS + estimateTokens(tool.name) + estimateTokens(tool.description) + estimateTokens(JSON.stringify(tool.parameters));
  toolListTokens.set(tools, sum);
  return sum;
}

export function promptTokens(messages: readonly ChatMessage[], tools: readonly ToolSpec[] = []): number {
  let sum = toolsTokens(tools);
  for (const message of messages) sum += messageTokens(message);
  return sum;
}

/** What a model's window allows a prompt: `limit` (the window less the reply's room) and where compaction starts. */
export interface WindowBudget {
  window: number;
  /** Most estimated tokens the prompt may take. */
  limit: number;
  /** A prompt above this is compacted (compaction.compact_at of the window, never above `limit`). */
  compactAt: number;
}

export function windowBudget(config: Config, provider: string, model: string): WindowBudget {
  const facts = modelFacts(config, provider, model);
  const window = facts.context_window;
  const asked = config.providers[provider]?.max_tokens ?? facts.max_output_tokens;
  const room = Math.min(asked, Math.floor(window * REPLY_ROOM_MAX_SHARE));
  const limit = window - room;
  return { window, limit, compactAt: Math.min(limit, Math.floor(window * config.compaction.compact_at)) };
}

/**
 * The longest answer a request may ask of `model`: what it asked, but no more than the model's known longest answer
 * (a client written for another model asks for more than this one gives, and the upstream would refuse the call).
 */
export function replyTokens(config: Config, provider: string, model: string, asked: number): number {
  const facts = modelFacts(config, provider, model);
  return facts.source === "default" ? asked : Math.min(asked, facts.max_output_tokens);
}

/** A prompt as it goes to the provider, and its estimate (before the correction ratio). */
export interface FittedPrompt {
  messages: ChatMessage[];
  tokens: number;
}

/**
 * The prompt within `limit` tokens (its estimate plus `extra`, the tool schemas, times `ratio`): the oldest history
 * messages (after the system message, before the last user message) are left out until it fits, an assistant's
 * tool calls together with their results. A prompt that fits keeps its array.
 */
export function fitPrompt(messages: ChatMessage[], limit: number, ratio = 1, extra = 0): FittedPrompt {
  const sizes = messages.map(messageTokens);
  let total = extra;
  for (const size of sizes) total += size;
  if (total * ratio <= limit) return { messages, tokens: total };
  let lastUser = messages.length - 1;
  while (lastUser > 0 && messages[lastUser]!.role !== "user") lastUser--;
  const start = messages[0]?.role === "system" ? 1 : 0;
  let cut = start;
  while (cut < lastUser && total * ratio > limit) {
    total -= sizes[cut]!;
    cut++;
    // never leave a tool result without its call
    while (cut < lastUser && messages[cut]!.role === "tool") total -= sizes[cut++]!;
  }
  if (cut === start) return { messages, tokens: total };
  return { messages: [...messages.slice(0, start), ...messages.slice(cut)], tokens: total };
}

/**
 * A tool result longer than `budget` estimated tokens, cut to it with a note of what was cut (the session keeps the
 * whole result). A result within the budget is returned as it is.
 */
export function cutToolResult(content: string, budget: number): string {
  if (content.length <= budget || estimateTokens(content) <= budget) return content;
  // bytes of the kept head within the budget: characters are at least one byte each
  let keep = budget * PROMPT_BYTES_PER_TOKEN;
  while (keep > 0 && estimateTokens(content.slice(0, keep)) > budget) keep = Math.floor(keep * 0.9);
  const head = content.slice(0, keep);
  return `${head}\n[cut: ${content.length - head.length} of ${content.length} characters left out of the prompt; the session keeps the whole result]`;
}

/** Tool messages within the budget (the others as they are; the same array when nothing was cut). */
export function cutToolResults(messages: ChatMessage[], budget: number): ChatMessage[] {
  let out: ChatMessage[] | null = null;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role !== "tool") continue;
    const cut = cutToolResult(message.content, budget);
    if (cut === message.content) continue;
    out ??= messages.slice();
    out[i] = { ...message, content: cut };
  }
  return out ?? messages;
}

/**
 * The correction of each session's estimate: the provider's reported prompt tokens over the estimate of what was
 * sent, from the session's last call (bounded; one owner per host).
 */
export class ContextRatios {
  private readonly ratios = new Map<string, number>();

  get(sessionId: string): number {
    return this.ratios.get(sessionId) ?? 1;
  }

  learn(sessionId: string, estimated: number, reported: number | undefined): void {
    if (!reported || reported <= 0 || estimated <= 0) return;
    const ratio = Math.min(RATIO_MAX, Math.max(RATIO_MIN, reported / estimated));
    this.ratios.delete(sessionId);
    this.ratios.set(sessionId, ratio);
    if (this.ratios.size > RATIO_SESSIONS_MAX) this.ratios.delete(this.ratios.keys().next().value!);
  }

  forget(sessionId: string): void {
    this.ratios.delete(sessionId);
  }
}
