import type { ChatMessage, ToolCall } from "../providers/types.ts";
import type { ToolContext, ToolResult } from "../tools/types.ts";
import { safely } from "./observer.ts";
import type { TurnTrace } from "./turn-trace.ts";
import type { LifecycleEmit, TurnObserver, TurnToolRecord } from "./types.ts";

export interface ToolRound {
  call(name: string, rawArguments: string, context: ToolContext): Promise<ToolResult>;
  context: ToolContext;
  observer: TurnObserver;
  emit: LifecycleEmit;
  /** Every server tool call of the turn, in order: this round's are appended. */
  records: TurnToolRecord[];
  /** Each call as a span of the turn's trace (telemetry on). */
  trace?: Pick<TurnTrace, "tool">;
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
    const { trace } = round;
    const result = await (trace ? trace.tool(call, () => round.call(call.name, call.arguments, context)) : round.call(call.name, call.arguments, context));
    round.records.push({ call, result });
    emit("tool_call", { tool: call.name, id: call.id, success: result.success });
    safely(() => observer.onToolResult?.(call, result));
    const content = result.success ? result.output : `error: ${result.error ?? result.output}`;
    results.push({ role: "tool", content, tool_call_id: call.id, name: call.name });
  }
}
