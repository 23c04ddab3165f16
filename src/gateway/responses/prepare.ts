import type { TurnInput, TurnResult } from "../../agent/types.ts";
import { PrxError } from "../../core/errors.ts";
import type { ResponseStore } from "../../storage/types.ts";
import type { GatewayContext } from "../context.ts";
import { toClientTools, toTurnMessages } from "../openai/convert.ts";
import { statelessTurnInput } from "../stateless-turn.ts";
import { requestedModel } from "../openai/models.ts";
import {
  echoTools,
  findOutputItem,
  formatInstruction,
  newResponseId,
  outputContext,
  outputItems,
  responseOfItem,
  responseUsage,
  toChatMessages,
  toChatTools,
  toContextItems,
  withIds,
  type ContextItem,
} from "./convert.ts";
import { RESPONSES_CONTEXT_MAX_ITEMS } from "./limits.ts";
import { answerFormat, answerFormatFailure } from "../answer-format.ts";
import { sampling } from "../sampling.ts";
import type { CreateResponseRequest, OutputItem, ResponseObject, StoredInputItem, TextFormat } from "./schemas.ts";
import type { ResponseFormat } from "../../providers/types.ts";

/** A response being made: the turn to run and everything the response object and its stored record need. */
export interface PreparedResponse {
  turn: Omit<TurnInput, "signal" | "observer">;
  /** The response object before it has an outcome. */
  base: ResponseObject;
  inputItems: StoredInputItem[];
  /** The conversation before this response's output (previous responses' items, then this request's). */
  conversation: ContextItem[];
  scope: string;
}

export const notFound = (id: string, param?: string) =>
  new PrxError("NOT_FOUND", `Response with id '${id}' not found.`, {
    hint: "a response is kept when it was made with store: true (the default), and only for the token that made it",
    ...(param ? { details: { param } } : {}),
  });

export async function storedResponse(store: ResponseStore, scope: string, id: string): Promise<{ response: ResponseObject; context: ContextItem[]; inputItems: StoredInputItem[] } | null> {
  const record = await store.get(scope, id);
  if (!record) return null;
  return {
    response: JSON.parse(record.response) as ResponseObject,
    context: JSON.parse(record.context) as ContextItem[],
    inputItems: JSON.parse(record.inputItems) as StoredInputItem[],
  };
}

/** Everything a request needs before its turn runs: checks, the chain it continues, the turn's input. */
export async function prepareResponse(gw: GatewayContext, body: CreateResponseRequest, scope: string): Promise<PreparedResponse> {
  const requested = requestedModel(gw.models, body.model);
  const store = gw.host.storage.responses;
  let previous: ContextItem[] = [];
  if (body.previous_response_id) {
    const found = await storedResponse(store, scope, body.previous_response_id);
    if (!found) {
      throw new PrxError("NOT_FOUND", `Previous response with id '${body.previous_response_id}' not found.`, {
        hint: "previous_response_id names a response made with store: true by this token",
        details: { param: "previous_response_id", openaiCode: "previous_response_not_found" },
      });
    }
    previous = found.context;
  }
  const inputItems = withIds(body.input);
  const lookup = async (itemId: string) => {
    const owner = responseOfItem(itemId);
    const found = owner ? await storedResponse(store, scope, owner) : null;
    return found ? findOutputItem(found.response, itemId) : null;
  };
  const conversation = [...previous, ...(await toContextItems(inputItems, lookup))];
  if (conversation.length > RESPONSES_CONTEXT_MAX_ITEMS) {
    throw new PrxError("LIMIT_EXCEEDED", `the conversation holds ${conversation.length} items, more than ${RESPONSES_CONTEXT_MAX_ITEMS}`, {
      hint: "start a new chain (no previous_response_id) with a summary of the conversation",
      details: { param: "input" },
    });
  }
  const system = [body.instructions, formatInstruction(body.text?.format)].filter((line): line is string => !!line);
  const turn: PreparedResponse["turn"] = statelessTurnInput({
    wire: "responses",
    channel: "openai",
    messages: toTurnMessages(toChatMessages(conversation, system)),
    ...(body.tools?.length ? { clientTools: toClientTools(toChatTools(body.tools), gw.host.tools.specs()) } : {}),
    toolChoiceNone: body.tool_choice === "none",
    ...(body.user ? { userId: body.user } : {}),
    turn: requested.turn,
  });
  const format = body.text?.format;
  turn.sampling = sampling(body.temperature, body.max_output_tokens, format && format.type !== "text" ? await answerFormat(responseFormat(format), "text.format") : undefined);
  const base: ResponseObject = {
    id: newResponseId(),
    object: "response",
    created_at: Math.floor(gw.now() / 1000),
    status: "in_progress",
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    metadata: body.metadata ?? {},
    model: requested.reported,
    output: [],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    store: body.store !== false,
    temperature: body.temperature ?? null,
    text: { format: body.text?.format ?? { type: "text" } },
    tool_choice: body.tool_choice ?? "auto",
    tools: echoTools(body.tools),
    top_p: body.top_p ?? null,
    truncation: body.truncation ?? "disabled",
    usage: null,
    user: body.user ?? null,
  };
  return { turn, base, inputItems, conversation, scope };
}

/** A text.format other than text, as providers take it. */
function responseFormat(format: Exclude<TextFormat, { type: "text" }>): ResponseFormat {
  if (format.type === "json_object") return { type: "json_object" };
  return {
    type: "json_schema",
    name: format.name,
    schema: format.schema,
    ...(format.strict != null ? { strict: format.strict } : {}),
    ...(format.description != null ? { description: format.description } : {}),
  };
}

/** The completed response of a turn (`output`: the items already built, when a stream built them). */
export function completedResponse(prepared: PreparedResponse, result: TurnResult, output?: OutputItem[]): ResponseObject {
  if (result.formatProblem !== undefined) throw answerFormatFailure(result.formatProblem, "text.format");
  return {
    ...prepared.base,
    status: "completed",
    output: output ?? outputItems(prepared.base.id, result.text, result.clientToolCalls),
    usage: responseUsage(result.usage),
  };
}

/** Keep a completed response for previous_response_id, unless the request said store: false. */
export async function keepResponse(gw: GatewayContext, prepared: PreparedResponse, response: ResponseObject): Promise<void> {
  if (!response.store) return;
  await gw.host.storage.responses.put({
    id: response.id,
    scope: prepared.scope,
    createdAt: response.created_at,
    response: JSON.stringify(response),
    inputItems: JSON.stringify(prepared.inputItems),
    context: JSON.stringify([...prepared.conversation, ...outputContext(response.output)]),
  });
}

