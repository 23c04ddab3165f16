import { PrxError } from "../../core/errors.ts";
import type { ToolCall, Usage } from "../../providers/types.ts";
import type { MessageUsage } from "./schemas.ts";

/** A turn's usage in the Messages API's shape. */
export function wireUsage(usage: Usage): MessageUsage {
  return {
    input_tokens: usage.prompt_tokens,
    output_tokens: usage.completion_tokens,
    cache_creation_input_tokens: null,
    cache_read_input_tokens: null,
  };
}

/** A client tool call as a tool_use block; its arguments must be a JSON object (Anthropic's `input`). */
export function toolUseBlock(call: ToolCall) {
  let input: unknown;
  try {
    input = call.arguments === "" ? {} : JSON.parse(call.arguments);
  } catch (error) {
    throw new PrxError("PROVIDER_PROTOCOL", `the model called ${call.name} with arguments that are not JSON: ${call.arguments.slice(0, 200)}`, {
      cause: error,
      hint: "ask again; a model that keeps doing this needs a provider with structured tool calls",
    });
  }
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new PrxError("PROVIDER_PROTOCOL", `the model called ${call.name} with arguments that are not a JSON object`, {
      hint: "ask again; tool_use input is always an object",
    });
  }
  return { type: "tool_use" as const, id: call.id, name: call.name, input: input as Record<string, unknown> };
}
