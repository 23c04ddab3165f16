import { jsonResponse } from "../errors.ts";
import type { GatewayContext } from "../context.ts";
import { runGatewayTurn } from "../turns.ts";
import { PrxError } from "../../core/errors.ts";
import { completedResponse, keepResponse, notFound, prepareResponse, storedResponse } from "./prepare.ts";
import type { CreateResponseRequest, InputItemsQuerySchema } from "./schemas.ts";
import { streamResponse } from "./stream.ts";

type InputItemsQuery = ReturnType<typeof InputItemsQuerySchema.parse>;

/**
 * POST /v1/responses. The conversation (the chain of previous_response_id, then the input) becomes the turn's
 * history; the agent runs its own tools inside the turn, and a call of a client tool ends the response with a
 * function_call item.
 */
export async function createResponse(gw: GatewayContext, body: CreateResponseRequest, scope: string, signal: AbortSignal): Promise<Response> {
  const prepared = await prepareResponse(gw, body, scope);
  if (body.stream) return streamResponse(gw, prepared, signal);
  const result = await runGatewayTurn(gw, { ...prepared.turn, signal });
  const response = completedResponse(prepared, result);
  await keepResponse(gw, prepared, response);
  return jsonResponse(response);
}

export async function getResponse(gw: GatewayContext, scope: string, id: string): Promise<Response> {
  const found = await storedResponse(gw.host.storage.responses, scope, id);
  if (!found) throw notFound(id);
  return jsonResponse(found.response);
}

export async function deleteResponse(gw: GatewayContext, scope: string, id: string): Promise<Response> {
  if (!(await gw.host.storage.responses.delete(scope, id))) throw notFound(id);
  return jsonResponse({ id, object: "response", deleted: true });
}

/** The input items of a stored response, a page at a time: newest first by default, `after`/`before` an item id. */
export async function listInputItems(gw: GatewayContext, scope: string, id: string, query: InputItemsQuery): Promise<Response> {
  const found = await storedResponse(gw.host.storage.responses, scope, id);
  if (!found) throw notFound(id);
  let items = query.order === "desc" ? [...found.inputItems].reverse() : found.inputItems;
  const cursor = (itemId: string, param: string) => {
    const at = items.findIndex((item) => item.id === itemId);
    if (at < 0) throw new PrxError("BAD_REQUEST", `${param}: no input item with id '${itemId}' in response '${id}'`, { details: { param } });
    return at;
  };
  if (query.after) items = items.slice(cursor(query.after, "after") + 1);
  if (query.before) items = items.slice(0, cursor(query.before, "before"));
  const page = items.slice(0, query.limit);
  return jsonResponse({
    object: "list",
    data: page,
    first_id: page[0]?.id ?? null,
    last_id: page.at(-1)?.id ?? null,
    has_more: items.length > page.length,
  });
}
