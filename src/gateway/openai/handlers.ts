import type { TurnResult } from "../../agent/types.ts";
import type { ToolCall } from "../../providers/types.ts";
import type { GatewayContext } from "../context.ts";
import { jsonResponse } from "../errors.ts";
import { runGatewayTurn } from "../turns.ts";
import { toClientTools, toTurnMessages } from "./convert.ts";
import { statelessTurnInput } from "../stateless-turn.ts";
import { requestedModel } from "./models.ts";
import type { ChatCompletion, ChatCompletionRequest, ChatResponseFormat } from "./schemas.ts";
import type { ResponseFormat } from "../../providers/types.ts";
import { answerFormat, answerFormatFailure } from "../answer-format.ts";
import { sampling } from "../sampling.ts";
import { streamCompletion } from "./stream.ts";

/** A tool call as the OpenAI wire carries it. */
export function wireToolCall(call: ToolCall) {
  return { id: call.id, type: "function" as const, function: { name: call.name, arguments: call.arguments } };
}

/** A response_format other than text, as providers take it. */
function chatResponseFormat(format: Exclude<ChatResponseFormat, { type: "text" }>): ResponseFormat {
  if (format.type === "json_object") return { type: "json_object" };
  const { name, schema, strict, description } = format.json_schema;
  return { type: "json_schema", name, schema, ...(strict != null ? { strict } : {}), ...(description != null ? { description } : {}) };
}

/**
 * The answer's message and finish reason: the client's tool calls when the model made some, else the text. An answer
 * that does not fit the request's response_format fails the request.
 */
export function answerOf(result: TurnResult): Pick<ChatCompletion["choices"][number], "message" | "finish_reason"> {
  if (result.formatProblem !== undefined) throw answerFormatFailure(result.formatProblem, "response_format");
  const calls = result.clientToolCalls;
  if (!calls) return { message: { role: "assistant", content: result.text, refusal: null }, finish_reason: "stop" };
  return {
    message: {
      role: "assistant",
      content: result.text === "" ? null : result.text,
      refusal: null,
      tool_calls: calls.map(wireToolCall),
    },
    finish_reason: "tool_calls",
  };
}

/**
 * POST /v1/chat/completions. The client's messages become the turn's history (nothing is stored); the agent runs its
 * own tools inside the turn. Client `tools` are offered beside them: when the model calls one, the answer carries the
 * call (finish_reason "tool_calls") and the client's follow-up with tool messages continues the conversation.
 */
export async function chatCompletions(gw: GatewayContext, body: ChatCompletionRequest, signal: AbortSignal): Promise<Response> {
  const requested = requestedModel(gw.models, body.model);
  const input = statelessTurnInput({
    wire: "openai",
    channel: "openai",
    messages: toTurnMessages(body.messages),
    ...(body.tools?.length ? { clientTools: toClientTools(body.tools, gw.host.tools.specs()) } : {}),
    toolChoiceNone: body.tool_choice === "none",
    ...(body.user ? { userId: body.user } : {}),
    turn: requested.turn,
  });
  const format = body.response_format;
  input.sampling = sampling(
    body.temperature,
    body.max_completion_tokens ?? body.max_tokens,
    format && format.type !== "text" ? await answerFormat(chatResponseFormat(format), "response_format") : undefined,
  );
  const id = `chatcmpl-${crypto.randomUUID().replaceAll("-", "")}`;
  const created = Math.floor(gw.now() / 1000);
  const model = requested.reported;

  if (body.stream) {
    const includeUsage = body.stream_options?.include_usage === true;
    return streamCompletion(gw, input, { id, created, model, includeUsage }, signal);
  }
  const result = await runGatewayTurn(gw, { ...input, signal });
  const completion: ChatCompletion = {
    id,
    object: "chat.completion",
    created,
    model,
    choices: [{ index: 0, ...answerOf(result), logprobs: null }],
    usage: result.usage,
  };
  return jsonResponse(completion);
}

export function listModels(gw: GatewayContext): Response {
  const created = Math.floor(gw.startedAt / 1000);
  const data = gw.models.catalog.map((entry) => ({
    id: entry.id,
    object: "model" as const,
    created,
    owned_by: entry.owned_by,
  }));
  return jsonResponse({ object: "list", data });
}
