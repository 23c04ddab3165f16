import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { jsonParser } from "../body.ts";
import { doc } from "../openapi/doc.ts";
import {
  CreateResponseRequestSchema,
  DeletedResponseSchema,
  InputItemListSchema,
  InputItemsQuerySchema,
  ResponseObjectSchema,
  ResponseStreamEventSchema,
} from "../responses/schemas.ts";
import { routeSchema } from "../route-schema.ts";
import { inCallerTrace } from "../trace-context.ts";

type Handlers = typeof import("../responses/handlers.ts");
let handlers: Promise<Handlers> | undefined;
/** The Responses API internals load on first use, keeping gateway start-up lean. */
const load = () => (handlers ??= import("../responses/handlers.ts"));

export const CreateResponseBody = routeSchema(CreateResponseRequestSchema);
const InputItemsQuery = routeSchema(InputItemsQuerySchema);
const tags = ["openai"];
const STORED =
  "Responses are kept (store: true, the default) in the workspace storage for the token that made them; another " +
  "token gets a 404.";

/** The OpenAI Responses API: create (JSON or typed SSE), read, delete, and list a stored response's input items. */
export function responsesRoutes(app: GatewayElysia, gw: GatewayContext): void {
  app.post(
    "/v1/responses",
    ({ body, request, prx }) => inCallerTrace(gw, request, async () => (await load()).createResponse(gw, body, prx.credential.id, request.signal)),
    {
      body: CreateResponseBody,
      parse: jsonParser(() => gw.config.max_body_bytes),
      detail: doc({
        summary: "OpenAI Responses API: create a response (JSON, or typed SSE events with stream: true)",
        description:
          "The same agent turn as /v1/chat/completions. `input` is a string or items: messages (input_text and " +
          "input_image parts), function_call and function_call_output items, item_reference to an output item of a " +
          "stored response; reasoning items are accepted and left out. `instructions` is a system message for this " +
          "response only. Client `tools` (type function) are offered beside the agent's own: a call to one ends the " +
          "response with a function_call output item; send its function_call_output to continue (with " +
          "previous_response_id, or the whole conversation). `tool_choice` is auto or none. `text.format` " +
          "json_object / json_schema is asked of the model (as an instruction, and natively where the provider has " +
          "a format field), the answer is checked against it and sent back once with what is wrong; one that still " +
          "does not fit fails the response (502 naming text.format). `temperature` and `max_output_tokens` apply to " +
          "the turn's model calls (capped by the model's known longest answer); they, `top_p`, `metadata` and " +
          "`user` are echoed on the response. " +
          "Accepted and ignored: `include: [\"reasoning.encrypted_content\"]`, `reasoning`, `parallel_tool_calls`, " +
          "`truncation`. Refused with a 400 naming the field: built-in tool types (web_search_preview, file_search, " +
          "computer_use_preview, custom, mcp, ...), `background: true`, `conversation`, `prompt`, other `include` " +
          `values. ${STORED} With stream: true the events are \`event: <type>\` lines with data carrying the same ` +
          "type and an increasing sequence_number: response.created, response.in_progress, output_item.added, " +
          "content_part.added, output_text.delta, output_text.done, content_part.done, " +
          "function_call_arguments.delta/.done, output_item.done, then response.completed (or error and " +
          "response.failed). Errors are OpenAI-shaped: {error: {message, type, param, code}}.",
        tags,
        responses: {
          200: {
            description: "the response; with stream: true, one typed event per SSE message (text/event-stream)",
            schema: ResponseObjectSchema,
            alternatives: { "text/event-stream": ResponseStreamEventSchema },
          },
        },
        errors: [400, 404, 405, 413, 415, 502, 503],
      }),
    },
  );
  app.get("/v1/responses/:id", async ({ params, prx }) => (await load()).getResponse(gw, prx.credential.id, params.id), {
    detail: doc({ summary: "A stored response", description: STORED, tags, responses: { 200: ResponseObjectSchema }, errors: [404] }),
  });
  app.delete("/v1/responses/:id", async ({ params, prx }) => (await load()).deleteResponse(gw, prx.credential.id, params.id), {
    detail: doc({ summary: "Delete a stored response", description: STORED, tags, responses: { 200: DeletedResponseSchema }, errors: [404] }),
  });
  app.get(
    "/v1/responses/:id/input_items",
    async ({ params, query, prx }) => (await load()).listInputItems(gw, prx.credential.id, params.id, query),
    {
      query: InputItemsQuery,
      detail: doc({
        summary: "The input items of a stored response",
        description: "Each item of the request's input with its id; newest first unless order=asc; after/before page by item id.",
        tags,
        responses: { 200: InputItemListSchema },
        errors: [400, 404],
      }),
    },
  );
}
