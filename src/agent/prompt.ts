import type { ChatMessage } from "../providers/types.ts";
import type { MemoryEntry } from "../memory/types.ts";

/** Memory excerpts added to the prompt are capped so recall can never crowd out the conversation. */
export const PROMPT_MEMORY_CHARS = 4000;

export interface PromptParts {
  systemPrompt: string;
  memories: MemoryEntry[];
  /** Extra context from plugin providers (remote providers, etc.). */
  context: string[];
  history: ChatMessage[];
  /** The new user message; absent when the turn continues from the history (it ends with tool results). */
  user?: string;
}

export function buildMessages(parts: PromptParts): ChatMessage[] {
  let system = parts.systemPrompt;
  if (parts.memories.length > 0) {
    let budget = PROMPT_MEMORY_CHARS;
    const lines: string[] = [];
    for (const m of parts.memories) {
      const line = `- ${m.key}: ${m.content}`;
      if (line.length > budget) break;
      budget -= line.length;
      lines.push(line);
    }
    if (lines.length) system += `\n\nRelevant memories:\n${lines.join("\n")}`;
  }
  for (const c of parts.context) if (c.trim()) system += `\n\n${c.trim()}`;
  const head: ChatMessage = { role: "system", content: system };
  if (parts.user === undefined) return [head, ...parts.history];
  return [head, ...parts.history, { role: "user", content: parts.user }];
}
