import { PrxError } from "../../core/errors.ts";
import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { jsonParser } from "../body.ts";
import { EmbeddingsRequestSchema, EmbeddingsResponseSchema } from "../embeddings/schemas.ts";
import { doc } from "../openapi/doc.ts";
import { routeSchema } from "../route-schema.ts";

type Handlers = typeof import("../embeddings/handlers.ts");
let handlers: Promise<Handlers> | undefined;
const load = () => (handlers ??= import("../embeddings/handlers.ts"));

export const EmbeddingsBody = routeSchema(EmbeddingsRequestSchema);

/**
 * POST /v1/embeddings, and the answer to the legacy POST /v1/completions: a 404 in OpenAI's shape whose hint says
 * how to send the same prompt to /v1/chat/completions (a prompt without a conversation is not a turn of an agent).
 */
export function embeddingsRoutes(app: GatewayElysia, gw: GatewayContext): void {
  app.post("/v1/embeddings", async ({ body, request }) => (await load()).createEmbeddings(gw, body, request.signal), {
    body: EmbeddingsBody,
    parse: jsonParser(() => gw.config.max_body_bytes),
    detail: doc({
      summary: "OpenAI-compatible embeddings",
      description:
        "Served by the provider whose `embedding_model` is `model` (an OpenAI-compatible provider; GET /v1/models " +
        "lists embedding models too); no fallback to another provider. `input` is a text or a list of texts " +
        "(token arrays are a 400). `encoding_format` float (default) or base64 (little-endian float32); " +
        "`dimensions` is passed to the model, and a model that does not take it answers 400. An unknown model is " +
        "OpenAI's 404 model_not_found.",
      tags: ["openai"],
      responses: { 200: EmbeddingsResponseSchema },
      errors: [400, 404, 413, 415, 502, 503],
    }),
  });
  app.post(
    "/v1/completions",
    () => {
      throw new PrxError("NOT_FOUND", "the legacy completions API (POST /v1/completions) is not served by prx", {
        hint:
          'send the prompt to POST /v1/chat/completions as {"model": ..., "messages": [{"role": "user", "content": ' +
          "<prompt>}]}, or to POST /v1/messages",
      });
    },
    {
      detail: doc({
        summary: "Legacy completions: not served (404 with a hint to /v1/chat/completions)",
        description:
          "prx's turns are conversations with tools and memory; a bare prompt to continue is not one. The answer is " +
          "OpenAI's error shape with code NOT_FOUND and a hint naming /v1/chat/completions.",
        tags: ["openai"],
        responses: {},
        errors: [404],
      }),
    },
  );
}
