import type { ChatMessage, MediaRef } from "../providers/types.ts";
import type { MemoryEntry } from "../memory/types.ts";

/**
 * Tokens are estimated, not counted (the tokenizer is the provider's): one per this many UTF-8 bytes, which is
 * about right for English and errs on the generous side for scripts that use more bytes per character.
 */
export const PROMPT_BYTES_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, "utf8") / PROMPT_BYTES_PER_TOKEN);
}

export interface PromptParts {
  systemPrompt: string;
  /** Auto-recalled memories, best first (already capped in number by memory.recall_limit). */
  memories: MemoryEntry[];
  /** Most tokens the memory lines may take (memory.recall_max_tokens). */
  memoryTokens: number;
  /** Extra context from plugin providers (remote providers, etc.). */
  context: string[];
  history: ChatMessage[];
  /** The new user message; absent when the turn continues from the history (it ends with tool results). */
  user?: string;
  /** Images (and audio) of the new user message. */
  media?: MediaRef[];
}

/**
 * The memory lines that go into the system prompt: best first, each one whole, within `budget` estimated tokens
 * (one that does not fit is left out and smaller ones after it may still fit). Private entries never do.
 */
export function memoryLines(memories: MemoryEntry[], budget: number): string[] {
  const lines: string[] = [];
  let left = budget;
  for (const m of memories) {
    if (m.private) continue;
    const line = `- ${m.key}: ${m.content}`;
    const cost = estimateTokens(line);
    if (cost > left) continue;
    left -= cost;
    lines.push(line);
  }
  return lines;
}

export function buildMessages(parts: PromptParts): ChatMessage[] {
  let system = parts.systemPrompt;
  const lines = parts.memories.length > 0 ? memoryLines(parts.memories, parts.memoryTokens) : [];
  if (lines.length) system += `\n\nRelevant memories:\n${lines.join("\n")}`;
  for (const c of parts.context) if (c.trim()) system += `\n\n${c.trim()}`;
  const head: ChatMessage = { role: "system", content: system };
  if (parts.user === undefined) return [head, ...parts.history];
  const user: ChatMessage = parts.media?.length ? { role: "user", content: parts.user, media: parts.media } : { role: "user", content: parts.user };
  return [head, ...parts.history, user];
}

/** The text of the last user message of a conversation ("" when there is none). */
export function lastUserText(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user") return messages[i]!.content;
  return "";
}
