import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { jsonParser } from "../body.ts";
import { doc } from "../openapi/doc.ts";
import {
  AnthropicErrorBodySchema,
  CountTokensRequestSchema,
  CountTokensResponseSchema,
  MessageSchema,
  MessagesRequestSchema,
} from "../anthropic/schemas.ts";
import { acceptPlainMessagesRequest } from "../anthropic/request-accept.ts";
import { routeSchema } from "../route-schema.ts";
import { inCallerTrace } from "../trace-context.ts";

type Handlers = typeof import("../anthropic/handlers.ts");
let handlers: Promise<Handlers> | undefined;
/** The Messages route internals load on first use, keeping gateway start-up lean. */
const load = () => (handlers ??= import("../anthropic/handlers.ts"));

export const MessagesBody = routeSchema(MessagesRequestSchema, acceptPlainMessagesRequest);
export const CountTokensBody = routeSchema(CountTokensRequestSchema);

const ERRORS = [400, 401, 404, 405, 413, 415, 429, 500, 529];

/**
 * Anthropic's Messages API on the one internal turn. The token may come as `x-api-key` (as Anthropic's SDKs send
 * it) or `Authorization: Bearer`; `anthropic-version` and `anthropic-beta` are accepted and not needed.
 */
export function anthropicRoutes(app: GatewayElysia, gw: GatewayContext): void {
  app.post("/v1/messages", ({ body, request }) => inCallerTrace(gw, request, async () => (await load()).createMessage(gw, body, request.signal)), {
    body: MessagesBody,
    parse: jsonParser(() => gw.config.max_body_bytes),
    detail: doc({
      summary: "Anthropic Messages API: one turn (JSON, or SSE events with stream: true)",
      description:
        "The client's messages are the conversation; nothing is stored. `system` (a string or text blocks) is kept " +
        "after the agent's own system prompt. User messages take `text`, `image` (base64 or url source) and " +
        "`tool_result` blocks; assistant messages `text` and `tool_use` (thinking blocks are accepted and left out). " +
        "The agent runs its own tools inside the turn; client `tools` (`input_schema`) are offered beside them: a " +
        "call to one ends the answer with a `tool_use` block and stop_reason `tool_use`; send its `tool_result` in " +
        "the next user message to continue. `tool_choice` `auto` or `none` (`any` and a named tool are 400s). " +
        "`max_tokens` is required (the provider's configured limit applies); `stop_sequences` cut the text before " +
        "the first one met (stop_reason `stop_sequence`); `temperature` is accepted; `metadata.user_id` is the " +
        "turn's user. Authenticate with `x-api-key: <prx token>` or `Authorization: Bearer <prx token>`. Errors " +
        "are Anthropic's: {type: error, error: {type, message}, request_id}.",
      tags: ["anthropic"],
      responses: { 200: MessageSchema },
      errors: ERRORS,
      errorSchema: AnthropicErrorBodySchema,
      apiKey: true,
    }),
  });
  app.post("/v1/messages/count_tokens", async ({ body }) => (await load()).countTokens(gw, body), {
    body: CountTokensBody,
    parse: jsonParser(() => gw.config.max_body_bytes),
    detail: doc({
      summary: "Anthropic Messages API: estimated input tokens of a request",
      description:
        "Checks the request as POST /v1/messages does and estimates its input tokens: text at one token per 4 " +
        "bytes, images at width × height / 750, client tools and the server tools the model is offered. An " +
        "estimate: the upstream model's tokenizer decides the real count.",
      tags: ["anthropic"],
      responses: { 200: CountTokensResponseSchema },
      errors: [400, 401, 404, 413, 415, 429],
      errorSchema: AnthropicErrorBodySchema,
      apiKey: true,
    }),
  });
}
