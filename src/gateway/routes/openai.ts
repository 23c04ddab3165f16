import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { jsonParser } from "../body.ts";
import { doc } from "../openapi/doc.ts";
import { ChatCompletionRequestSchema, ChatCompletionSchema, ModelListSchema } from "../openai/schemas.ts";
import { routeSchema } from "../route-schema.ts";
import { acceptPlainChatRequest } from "../openai/request-accept.ts";
import { inCallerTrace } from "../trace-context.ts";

type Handlers = typeof import("../openai/handlers.ts");
let handlers: Promise<Handlers> | undefined;
/** The OpenAI route internals load on first use, keeping gateway start-up lean. */
const load = () => (handlers ??= import("../openai/handlers.ts"));

export const ChatCompletionBody = routeSchema(ChatCompletionRequestSchema, acceptPlainChatRequest);

export function openaiRoutes(app: GatewayElysia, gw: GatewayContext): void {
  app.post("/v1/chat/completions", ({ body, request }) => inCallerTrace(gw, request, async () => (await load()).chatCompletions(gw, body, request.signal)), {
    body: ChatCompletionBody,
    parse: jsonParser(() => gw.config.max_body_bytes),
    detail: doc({
      summary: "OpenAI-compatible chat completion (JSON, or SSE with stream: true)",
      description:
        "The client's messages are the conversation; nothing is stored. The agent runs its own tools inside the turn. " +
        "Client `tools` are offered beside them: a call to one ends the answer with `tool_calls` and finish_reason " +
        "`tool_calls` (the server's calls in that same response are not run); send the tool results back as `tool` " +
        "messages to continue. A client tool named like a server tool is a 400. `model` must be served (GET " +
        "/v1/models, hint:<route>, or a [gateway] model_aliases name): anything else is OpenAI's 404 model_not_found. " +
        "With stream: true, `data:` chunks end with `data: [DONE]`; stream_options.include_usage adds a usage chunk. " +
        "Errors are OpenAI-shaped: {error: {message, type, param, code}}.",
      tags: ["openai"],
      responses: { 200: ChatCompletionSchema },
      errors: [400, 404, 405, 413, 415, 502, 503],
    }),
  });
  app.get(
    "/v1/models",
    async ({ request }) =>
      request.headers.has("anthropic-version") ? (await import("../anthropic/handlers.ts")).listModels(gw) : (await load()).listModels(gw),
    {
      detail: doc({
        summary: "Models this gateway answers to",
        description: "OpenAI's list; with an `anthropic-version` header (Anthropic's SDKs), Anthropic's: {data: [{type: model, id, display_name, created_at}], has_more, first_id, last_id}.",
        tags: ["openai"],
        responses: { 200: ModelListSchema },
      }),
    },
  );
}
