import { logStreamEnd } from "./errors.ts";
import { planTurn, type TurnPlan, type TurnRequest } from "../agent/plan.ts";
import type { TurnInput, TurnResult } from "../agent/types.ts";
import { toPrxError } from "../core/errors.ts";
import type { GatewayContext } from "./context.ts";
import type { SessionEvents, TurnReply } from "./schemas.ts";
import { sseResponse, type SseWriter } from "./sse.ts";
import { runGatewayTurn } from "./turns.ts";

export function toTurnReply(result: TurnResult): TurnReply {
  return {
    session_id: result.sessionId,
    reply: result.text,
    model: result.model,
    provider: result.provider,
    usage: result.usage,
    tool_calls: result.toolCalls.map(({ call, result: r }) => ({
      id: call.id,
      name: call.name,
      arguments: call.arguments,
      success: r.success,
      output: r.success ? r.output : (r.error ?? r.output),
    })),
    messages: result.messages,
  };
}

/**
 * Refuse before any byte of a stream is sent when the turn could not start: shutting down, unknown model, or a
 * provider (and every fallback) whose configuration fails each call (a key variable that is not set). The plan it
 * resolved is the turn's: nothing resolves the model again.
 */
export function preflight(gw: GatewayContext, request: TurnRequest): TurnPlan {
  gw.turns.assertAdmitting();
  const plan = planTurn(gw.host, request);
  const { provider } = plan;
  const problem = provider.configProblem?.();
  if (problem && !provider.chain?.slice(1).some((fallback) => !fallback.configProblem?.())) throw problem;
  return plan;
}

/**
 * A turn streamed as SSE: delta, tool_call, tool_result, message, then done or error. A provider failure
 * mid-stream ends the stream with `error`; the session keeps what was said (the agent persists it).
 */
export function streamTurn(gw: GatewayContext, input: Omit<TurnInput, "observer" | "signal">, clientSignal?: AbortSignal): Promise<Response> {
  const plan = preflight(gw, input);
  return sseResponse(async (writer, signal) => {
    const sse = typed(writer);
    try {
      const result = await runGatewayTurn(gw, {
        ...input,
        signal,
        approvals: {
          kind: "ask",
          notify: (p) =>
            sse.send("approval", {
              id: p.id,
              code: p.code,
              tool: p.tool,
              risk: p.risk,
              arguments_preview: p.preview,
              expires_at: new Date(p.expiresAt).toISOString(),
            }),
        },
        observer: {
          onDelta: (text) => sse.send("delta", { text }),
          onToolCallStart: (call) => sse.send("tool_call", { id: call.id, name: call.name, arguments: call.arguments }),
          onToolResult: (call, result) =>
            sse.send("tool_result", {
              id: call.id,
              name: call.name,
              success: result.success,
              output: result.success ? result.output : (result.error ?? result.output),
            }),
          onMessage: (text) => sse.send("message", { text }),
        },
      }, { cancellable: true, plan });
      sse.send("done", toTurnReply(result));
    } catch (thrown) {
      const error = toPrxError(thrown);
      logStreamEnd(gw.logger, "streamed turn", error, { session: input.sessionId });
      sse.send("error", { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) });
    }
  }, { signal: clientSignal });
}

function typed(writer: SseWriter): { send<K extends keyof SessionEvents>(event: K, data: SessionEvents[K]): void } {
  return { send: (event, data) => writer.send(event, data) };
}
