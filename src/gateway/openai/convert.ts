import { PrxError } from "../../core/errors.ts";
import type { ChatMessage } from "../../providers/types.ts";
import type { OpenAIMessage } from "./schemas.ts";

function textOf(message: OpenAIMessage, index: number): string {
  const content = message.content;
  if (content === undefined || content === null) return "";
  if (typeof content === "string") return content;
  return content
    .map((part, j) => {
      if (part.type !== "text" || typeof part.text !== "string") {
        throw new PrxError(
          "BAD_REQUEST",
          `messages[${index}].content[${j}]: only text parts are supported, got type "${part.type}"`,
        );
      }
      return part.text;
    })
    .join("");
}

/**
 * The client's conversation as prx history plus the new user text. The agent's own system prompt stays in
 * charge; client system/developer messages are kept in the history as system messages.
 */
export function toTurnMessages(messages: OpenAIMessage[]): { history: ChatMessage[]; text: string } {
  const last = messages.at(-1)!;
  if (last.role !== "user") {
    throw new PrxError("BAD_REQUEST", `the last message must have role "user", got "${last.role}"`, {
      hint: "prx runs tools itself; send the conversation ending with the user's message",
    });
  }
  const history = messages.slice(0, -1).map((message, index): ChatMessage => {
    const content = textOf(message, index);
    switch (message.role) {
      case "system":
      case "developer":
        return { role: "system", content };
      case "assistant":
        return message.tool_calls?.length
          ? {
              role: "assistant",
              content,
              tool_calls: message.tool_calls.map((call) => ({
                id: call.id,
                name: call.function.name,
                arguments: call.function.arguments,
              })),
            }
          : { role: "assistant", content };
      case "tool":
        return {
          role: "tool",
          content,
          tool_call_id: message.tool_call_id,
          ...(message.name ? { name: message.name } : {}),
        };
      default:
        return { role: "user", content };
    }
  });
  const text = textOf(last, messages.length - 1);
  if (text.trim() === "")
    throw new PrxError("BAD_REQUEST", `messages[${messages.length - 1}]: the user message is empty`);
  return { history, text };
}
