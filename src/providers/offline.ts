import type { ChatMessage, ChatRequest, ChatResponse, Provider, ToolCall } from "./types.ts";
import { PrxError } from "../core/errors.ts";
import { fallbackNote, offlineIntro } from "./offline-help.ts";

export { OFFLINE_SETUP_HELP } from "./offline-help.ts";

/** Longest memory key the offline provider derives from "remember X". */
export const OFFLINE_KEY_MAX_CHARS = 48;
/** Words of X used for the key. */
export const OFFLINE_KEY_WORDS = 6;

const REMEMBER = /^\s*(?:please\s+)?remember(?:\s+that)?[\s:,]+(.+?)\s*$/is;
const RECALL = /^\s*(?:what\s+do\s+you\s+remember\s+about|recall)\s+(.+?)[\s?.!]*$/is;

/** Deterministic memory key from free text: slug of its first words. */
export function offlineMemoryKey(text: string): string {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const slug = words.slice(0, OFFLINE_KEY_WORDS).join("-").slice(0, OFFLINE_KEY_MAX_CHARS).replace(/-+$/, "");
  return slug === "" ? "note" : slug;
}

function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Tool results may be plain text or JSON (a list of entries, or an object holding one). */
function describeRecall(content: string): string {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return content.trim() === "" ? "(nothing)" : content.trim();
  }
  const record = value as Record<string, unknown> | null;
  const list = Array.isArray(value)
    ? value
    : [record?.results, record?.memories, record?.entries].find((candidate) => Array.isArray(candidate));
  if (!Array.isArray(list)) return content.trim();
  if (list.length === 0) return "(nothing)";
  return list
    .map((item) => {
      if (typeof item === "string") return `- ${item}`;
      const entry = item as Record<string, unknown>;
      const text = typeof entry.content === "string" ? entry.content : JSON.stringify(item);
      return typeof entry.key === "string" ? `- ${entry.key}: ${text}` : `- ${text}`;
    })
    .join("\n");
}

export interface OfflineProviderOptions {
  /** The workspace's config.toml, or null when there is none (then the setup hint says `prx init`). */
  configPath?: string | null;
}

/**
 * The built-in provider for a machine with nothing configured: no network, same answer for the same
 * conversation. It uses memory_store / memory_recall when they are offered, so tools can be exercised
 * end to end without a model. Answering as a fallback, it says which provider failed, why, and how to fix it.
 */
export class OfflineProvider implements Provider {
  private readonly configPath: string | null;

  constructor(
    readonly name = "offline",
    options: OfflineProviderOptions = {},
  ) {
    this.configPath = options.configPath ?? null;
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    if (request.signal?.aborted) throw new PrxError("ABORTED", `${this.name}: request cancelled`);
    const { text, toolCalls } = this.decide(request);
    const prompt = request.messages.reduce((sum, message) => sum + estimateTokens(message.content), 0);
    const completion = estimateTokens(text) + toolCalls.reduce((sum, call) => sum + estimateTokens(call.arguments), 0);
    if (request.onDelta) {
      for (const piece of splitForStreaming(text)) request.onDelta({ type: "text", text: piece });
      toolCalls.forEach((call, index) =>
        request.onDelta!({ type: "tool_call", index, id: call.id, name: call.name, argumentsDelta: call.arguments }),
      );
    }
    return {
      text,
      toolCalls,
      model: request.model || "offline",
      provider: this.name,
      finishReason: toolCalls.length > 0 ? "tool_calls" : "stop",
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    };
  }

  async listModels(): Promise<string[]> {
    return ["offline"];
  }

  async probe(): Promise<string | null> {
    return null;
  }

  private decide(request: ChatRequest): { text: string; toolCalls: ToolCall[] } {
    const messages = request.messages;
    const last = messages.at(-1);
    const offered = new Set((request.tools ?? []).map((tool) => tool.name));
    if (last?.role === "tool") return { text: this.afterTool(messages, last), toolCalls: [] };

    const user = [...messages].reverse().find((message) => message.role === "user");
    const said = user?.content.trim() ?? "";
    const callId = `call_offline_${countToolCalls(messages) + 1}`;
    const remember = REMEMBER.exec(said);
    if (remember && offered.has("memory_store")) {
      const content = remember[1]!;
      const args = JSON.stringify({ key: offlineMemoryKey(content), content });
      return { text: "", toolCalls: [{ id: callId, name: "memory_store", arguments: args }] };
    }
    const recall = RECALL.exec(said);
    if (recall && offered.has("memory_recall")) {
      const args = JSON.stringify({ query: recall[1]! });
      return { text: "", toolCalls: [{ id: callId, name: "memory_recall", arguments: args }] };
    }
    const firstTurn = !messages.some((message) => message.role === "assistant");
    const echo = said === "" ? "(offline) I received an empty message." : `(offline) You said: ${said}`;
    const failed = request.failedProviders ?? [];
    if (failed.length > 0) return { text: `${echo}\n\n${fallbackNote(this.name, failed)}`, toolCalls: [] };
    return { text: firstTurn ? `${echo}\n\n${offlineIntro(this.name, this.configPath)}` : echo, toolCalls: [] };
  }

  private afterTool(messages: ChatMessage[], result: ChatMessage): string {
    const call = messages
      .flatMap((message) => message.tool_calls ?? [])
      .find((candidate) => candidate.id === result.tool_call_id);
    const tool = call?.name ?? result.name ?? "tool";
    let args: Record<string, unknown> = {};
    try {
      args = call ? (JSON.parse(call.arguments) as Record<string, unknown>) : {};
    } catch {
      args = {};
    }
    if (tool === "memory_store") {
      const stored = `(offline) Stored in memory as "${String(args.key ?? "note")}": ${String(args.content ?? "")}`;
      return `${stored}\nTool said: ${result.content}`;
    }
    if (tool === "memory_recall") {
      const about = String(args.query ?? "");
      return `(offline) Here is what I remember about "${about}":\n${describeRecall(result.content)}`;
    }
    return `(offline) The ${tool} tool returned: ${result.content}`;
  }
}

function countToolCalls(messages: ChatMessage[]): number {
  return messages.reduce((sum, message) => sum + (message.tool_calls?.length ?? 0), 0);
}

/** Split into up to four word-aligned pieces that concatenate back to the text. */
export function splitForStreaming(text: string): string[] {
  if (text === "") return [];
  const words = text.split(/(?<=\s)/);
  const per = Math.max(1, Math.ceil(words.length / 4));
  const pieces: string[] = [];
  for (let i = 0; i < words.length; i += per) pieces.push(words.slice(i, i + per).join(""));
  return pieces;
}
