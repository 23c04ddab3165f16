import { type JsonStandIns, parseJsonBounded } from "../core/json/index.ts";
import type { AnthropicImageBlock, AnthropicMessage, AnthropicRequestBlock, AnthropicUsage } from "./anthropic-wire.ts";
import type { ChatMessage, MediaRef, ToolSpec, Usage } from "./types.ts";

/** Our OpenAI-shaped history -> Anthropic's `system` plus alternating block messages. */
/** `standIns`: image data goes in as stand-ins, to be filled in after the body is serialized (see JsonStandIns). */
export function toAnthropicMessages(
  messages: ChatMessage[],
  standIns?: JsonStandIns,
): { system?: string; messages: AnthropicMessage[] } {
  const system: string[] = [];
  const out: { role: "user" | "assistant"; content: AnthropicRequestBlock[] }[] = [];
  const push = (role: "user" | "assistant", blocks: AnthropicRequestBlock[]) => {
    if (blocks.length === 0) return;
    const last = out.at(-1);
    // Consecutive same-role messages (e.g. several tool results) become one message.
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case "system":
        if (message.content !== "") system.push(message.content);
        break;
      case "user": {
        const text: AnthropicRequestBlock[] = message.content === "" ? [] : [{ type: "text", text: message.content }];
        push("user", message.media?.length ? [...imageBlocks(message.media, standIns), ...text] : text);
        break;
      }
      case "tool":
        push("user", [{ type: "tool_result", tool_use_id: message.tool_call_id ?? "", content: message.content }]);
        break;
      case "assistant": {
        const blocks: AnthropicRequestBlock[] = message.content === "" ? [] : [{ type: "text", text: message.content }];
        for (const call of message.tool_calls ?? []) {
          blocks.push({ type: "tool_use", id: call.id, name: call.name, input: parseToolInput(call.arguments) });
        }
        push("assistant", blocks);
        break;
      }
    }
  }
  // Plain text-only messages go out as strings, the shape most examples use.
  const mapped: AnthropicMessage[] = out.map((message) =>
    message.content.length === 1 && message.content[0]!.type === "text"
      ? { role: message.role, content: (message.content[0] as { text: string }).text }
      : message,
  );
  return system.length > 0 ? { system: system.join("\n\n"), messages: mapped } : { messages: mapped };
}

/**
 * Images as Anthropic's Messages API takes them, before the text they come with:
 * `{"type": "image", "source": {"type": "base64", "media_type", "data"}}` or `{"source": {"type": "url", "url"}}`.
 */
function imageBlocks(media: MediaRef[], standIns: JsonStandIns | undefined): AnthropicRequestBlock[] {
  const blocks: AnthropicImageBlock[] = [];
  for (const ref of media) {
    if (ref.kind !== "image") continue;
    if (ref.data !== undefined) {
      const data = standIns ? standIns.stand(ref.data) : ref.data;
      blocks.push({ type: "image", source: { type: "base64", media_type: ref.mime!, data } });
    }
    else if (ref.url) blocks.push({ type: "image", source: { type: "url", url: ref.url } });
  }
  return blocks;
}

/** Anthropic wants an object; keep unparseable argument text rather than dropping it. */
export function parseToolInput(args: string): Record<string, unknown> {
  if (args.trim() === "") return {};
  try {
    const value: unknown = parseJsonBounded(args, "tool arguments");
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
    return { value };
  } catch {
    return { raw: args };
  }
}

export function toAnthropicTools(tools: ToolSpec[]) {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: { type: "object", ...tool.parameters },
  }));
}

export function mapUsage(usage: AnthropicUsage): Usage {
  const prompt =
    (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
  const completion = usage.output_tokens ?? 0;
  const mapped: Usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  if (typeof usage.cache_read_input_tokens === "number") mapped.prompt_tokens_details = { cached_tokens: usage.cache_read_input_tokens };
  return mapped;
}

/** Anthropic stop reasons -> the OpenAI-style finish reasons the rest of prx speaks. */
export function mapStopReason(reason: string | null | undefined): string | undefined {
  if (!reason) return undefined;
  const map: Record<string, string> = {
    end_turn: "stop",
    stop_sequence: "stop",
    tool_use: "tool_calls",
    max_tokens: "length",
    refusal: "content_filter",
  };
  return map[reason] ?? reason;
}

/** HTTP status equivalent of an error event inside an Anthropic stream. */
export function statusForErrorType(type: string): number {
  const map: Record<string, number> = {
    invalid_request_error: 400,
    authentication_error: 401,
    permission_error: 403,
    not_found_error: 404,
    request_too_large: 413,
    rate_limit_error: 429,
    api_error: 500,
    overloaded_error: 529,
  };
  return map[type] ?? 500;
}
