import type { ChatRequest, ChatResponse, ToolCall } from "../providers/types.ts";
import { activeSpan, GenAi, inSpan, Prx, SpanKind, type Span, type SpanContext, type Tracer } from "../telemetry/index.ts";
import type { ToolResult } from "../tools/types.ts";
import type { TurnInput, TurnResult } from "./types.ts";

/**
 * A turn's spans, with the GenAI semantic conventions: `invoke_agent {agent}` around the turn, `chat {model}` per
 * model call and `execute_tool {name}` per tool call, its children. Each runs with its span active, so plugin calls
 * and deliveries inside it become its children. Only a turn whose host has telemetry on has one.
 */
export class TurnTrace {
  constructor(
    private readonly tracer: Tracer,
    readonly span: Span,
  ) {}

  /** One model call of the turn (the provider's retries and fallbacks inside it). */
  chat(provider: string, request: ChatRequest, call: () => Promise<ChatResponse>): Promise<ChatResponse> {
    return chatSpan(this.tracer, this.span.context, provider, request, call);
  }

  /** One tool call; a result that is not a success marks the span failed. */
  tool(call: ToolCall, run: () => Promise<ToolResult>): Promise<ToolResult> {
    const span = this.tracer.startSpan(`execute_tool ${call.name}`, {
      parent: this.span.context,
      attributes: { [GenAi.operation]: "execute_tool", [GenAi.toolName]: call.name, [GenAi.toolCallId]: call.id, [GenAi.toolType]: "function" },
    });
    return inSpan(this.tracer, span, async () => {
      const result = await run();
      span.setAttribute(Prx.toolSuccess, result.success);
      if (!result.success) span.fail((result.error ?? result.output).slice(0, 500), "tool_error");
      return result;
    });
  }
}

/** A model call outside the turn's loop (compaction's summariser) as a `chat {model}` span of the active span, if any. */
export function tracedChat(provider: string, request: ChatRequest, call: () => Promise<ChatResponse>): Promise<ChatResponse> {
  const active = activeSpan();
  return active ? chatSpan(active.tracer, active.span.context, provider, request, call) : call();
}

function chatSpan(tracer: Tracer, parent: SpanContext, provider: string, request: ChatRequest, call: () => Promise<ChatResponse>): Promise<ChatResponse> {
  const span = tracer.startSpan(`chat ${request.model}`, {
    kind: SpanKind.client,
    parent,
    attributes: {
      [GenAi.operation]: "chat",
      [GenAi.provider]: provider,
      [GenAi.system]: provider,
      [GenAi.requestModel]: request.model,
      [GenAi.temperature]: request.temperature,
      [GenAi.maxTokens]: request.maxTokens,
    },
  });
  return inSpan(tracer, span, async () => {
    const response = await call();
    span.setAttribute(GenAi.responseModel, response.model);
    if (response.provider !== provider) span.setAttribute(GenAi.provider, response.provider);
    span.setAttribute(GenAi.inputTokens, response.usage?.prompt_tokens);
    span.setAttribute(GenAi.outputTokens, response.usage?.completion_tokens);
    if (response.finishReason !== undefined) span.setAttribute(GenAi.finishReasons, [response.finishReason]);
    return response;
  });
}

/** `run` as the turn's span: a child of the active span (a gateway caller's `traceparent`, a channel message), if any. */
export function traceTurn(tracer: Tracer, input: TurnInput, run: (trace: TurnTrace) => Promise<TurnResult>): Promise<TurnResult> {
  const agent = input.agent ?? "main";
  const span = tracer.startSpan(`invoke_agent ${agent}`, {
    attributes: {
      [GenAi.operation]: "invoke_agent",
      [GenAi.agentName]: agent,
      [GenAi.agentId]: agent,
      [GenAi.conversation]: input.sessionId,
      [Prx.session]: input.sessionId,
      [Prx.channel]: input.channel,
    },
  });
  const trace = new TurnTrace(tracer, span);
  return inSpan(tracer, span, async () => {
    const result = await run(trace);
    span.setAttribute(GenAi.provider, result.provider);
    span.setAttribute(GenAi.requestModel, result.model);
    span.setAttribute(GenAi.inputTokens, result.usage.prompt_tokens);
    span.setAttribute(GenAi.outputTokens, result.usage.completion_tokens);
    span.setAttribute(Prx.iterations, result.iterations);
    span.setAttribute(Prx.toolCalls, result.toolCalls.length);
    if (result.blocked) span.setAttribute(Prx.blocked, `${result.blocked.plugin}/${result.blocked.stage}`);
    return result;
  });
}
