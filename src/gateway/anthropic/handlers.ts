import { estimateTokens } from "../../agent/prompt.ts";
import type { TurnInput } from "../../agent/types.ts";
import type { GatewayContext } from "../context.ts";
import { jsonResponse } from "../errors.ts";
import { requestedModel } from "../openai/models.ts";
import { runGatewayTurn } from "../turns.ts";
import { toClientTools, toTurnMessages } from "./convert.ts";
import { statelessTurnInput } from "../stateless-turn.ts";
import { sampling } from "../sampling.ts";
import type { CountTokensRequest, Message, MessagesRequest } from "./schemas.ts";
import { applyStops } from "./stop-sequences.ts";
import { streamMessage } from "./stream.ts";
import { toolUseBlock, wireUsage } from "./wire-parts.ts";

/** `msg_` and 32 hex digits. */
export function messageId(): string {
  return `msg_${crypto.randomUUID().replaceAll("-", "")}`;
}

/** The request as the one internal turn's input (everything but the signal and observer). */
function turnInput(gw: GatewayContext, body: MessagesRequest, turn: { provider?: string; model?: string }): Omit<TurnInput, "signal" | "observer"> {
  const user = body.metadata?.user_id;
  const input = statelessTurnInput({
    wire: "anthropic",
    channel: "anthropic",
    messages: toTurnMessages(body),
    ...(body.tools?.length ? { clientTools: toClientTools(body.tools, gw.host.tools.specs()) } : {}),
    toolChoiceNone: body.tool_choice?.type === "none",
    ...(user ? { userId: user } : {}),
    turn,
  });
  input.sampling = sampling(body.temperature, body.max_tokens, undefined);
  return input;
}

/**
 * POST /v1/messages. The client's messages become the turn's history (nothing is stored); the agent runs its own
 * tools inside the turn. Client `tools` are offered beside them: when the model calls one the answer carries its
 * tool_use block (stop_reason "tool_use") and the client's follow-up with tool_result blocks continues the turn.
 */
export async function createMessage(gw: GatewayContext, body: MessagesRequest, signal: AbortSignal): Promise<Response> {
  const requested = requestedModel(gw.models, body.model);
  const input = turnInput(gw, body, requested.turn);
  const meta = { id: messageId(), model: requested.reported, stops: body.stop_sequences ?? [] };
  if (body.stream) return streamMessage(gw, input, meta, signal);
  const result = await runGatewayTurn(gw, { ...input, signal });
  const { text, stopped } = applyStops(result.text, meta.stops);
  const calls = stopped === null ? (result.clientToolCalls ?? []) : [];
  const content: Message["content"] = [
    ...(text !== "" || calls.length === 0 ? [{ type: "text" as const, text }] : []),
    ...calls.map(toolUseBlock),
  ];
  const message: Message = {
    id: meta.id,
    type: "message",
    role: "assistant",
    content,
    model: meta.model,
    stop_reason: stopped !== null ? "stop_sequence" : calls.length > 0 ? "tool_use" : "end_turn",
    stop_sequence: stopped,
    usage: wireUsage(result.usage),
  };
  return jsonResponse(message);
}

/** Anthropic's own estimate for an image: about width × height / 750 tokens; this when the size is not known. */
const IMAGE_TOKENS_UNKNOWN_SIZE = 1600;

/**
 * POST /v1/messages/count_tokens: what the request would send, estimated the way prx estimates prompts (one token
 * per 4 bytes of UTF-8), images as Anthropic sizes them, and the specs of the server's tools the model is offered
 * beside the client's. The model and the conversation are checked as a Messages request checks them.
 */
export function countTokens(gw: GatewayContext, body: CountTokensRequest): Response {
  requestedModel(gw.models, body.model);
  const { history, text, media } = toTurnMessages(body);
  let tokens = estimateTokens(text);
  for (const message of history) {
    tokens += estimateTokens(message.content);
    if (message.tool_calls) tokens += estimateTokens(JSON.stringify(message.tool_calls));
    for (const ref of message.media ?? []) tokens += imageTokens(ref.width, ref.height);
  }
  for (const ref of media ?? []) tokens += imageTokens(ref.width, ref.height);
  const tools = [...(body.tool_choice?.type === "none" ? [] : gw.host.tools.specs()), ...(body.tools ?? [])];
  if (tools.length > 0) tokens += estimateTokens(JSON.stringify(tools));
  return jsonResponse({ input_tokens: tokens });
}

function imageTokens(width: number | undefined, height: number | undefined): number {
  return width && height ? Math.ceil((width * height) / 750) : IMAGE_TOKENS_UNKNOWN_SIZE;
}

/**
 * GET /v1/models as Anthropic's API answers it (a request carrying `anthropic-version`, as Anthropic's SDKs send):
 * the same models as the OpenAI list, one page.
 */
export function listModels(gw: GatewayContext): Response {
  const created = new Date(gw.startedAt).toISOString();
  const data = gw.models.catalog.map((entry) => ({ type: "model" as const, id: entry.id, display_name: entry.id, created_at: created }));
  return jsonResponse({ data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
}
