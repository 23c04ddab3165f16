import type { ChatMessage, ToolCall } from "../providers/types.ts";
import type { ToolContext, ToolResult } from "../tools/types.ts";
import type { LifecycleName } from "../contracts/lifecycle.ts";
import type { TurnObserver, TurnToolRecord } from "./types.ts";

/** Observers are UI callbacks; a failing UI must not break the turn. */
export function safely(fn: () => void): void {
  try {
    fn();
  } catch {
    // deliberately ignored: see above
  }
}

export interface ToolRound {
  call(name: string, rawArguments: string, context: ToolContext): Promise<ToolResult>;
  context: ToolContext;
  observer: TurnObserver;
  emit(name: LifecycleName, payload: Record<string, unknown>): void;
  /** Every server tool call of the turn, in order: this round's are appended. */
  records: TurnToolRecord[];
}

/**
 * Run the server's tool calls of one model response, in order, appending their tool messages to `results` as they
 * finish (every call gets one, a cancelled turn's included, so history never holds unanswered calls).
 */
export async function runToolRound(calls: readonly ToolCall[], results: ChatMessage[], round: ToolRound): Promise<void> {
  const { context, observer, emit } = round;
  for (const call of calls) {
    if (context.signal.aborted) {
      results.push({ role: "tool", content: "error: cancelled", tool_call_id: call.id, name: call.name });
      continue;
    }
    emit("tool_call_start", { tool: call.name, id: call.id });
    safely(() => observer.onToolCallStart?.(call));
    const result = await round.call(call.name, call.arguments, context);
    round.records.push({ call, result });
    emit("tool_call", { tool: call.name, id: call.id, success: result.success });
    safely(() => observer.onToolResult?.(call, result));
    const content = result.success ? result.output : `error: ${result.error ?? result.output}`;
    results.push({ role: "tool", content, tool_call_id: call.id, name: call.name });
  }
}

/** The text of the last user message of a conversation ("" when there is none). */
export function lastUserText(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user") return messages[i]!.content;
  return "";
}
