import { toPrxError } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { readJsonBody } from "../body.ts";
import type { GatewayContext } from "../context.ts";
import { jsonResponse } from "../errors.ts";
import { preflight } from "../reply.ts";
import { sseResponse } from "../sse.ts";
import { runGatewayTurn } from "../turns.ts";
import { toTurnMessages } from "./convert.ts";
import { modelCatalog, selectModel } from "./models.ts";
import { ChatCompletionRequestParser, type ChatCompletion, type ChatCompletionChunk } from "./schemas.ts";

/**
 * POST /v1/chat/completions. The client's messages become the turn's history (nothing is stored); the agent
 * runs its tools itself, so the client only ever sees assistant content.
 */
export async function chatCompletions(gw: GatewayContext, request: Request): Promise<Response> {
  const body = await readJsonBody(request, ChatCompletionRequestParser(), gw.config.max_body_bytes);
  const { history, text } = toTurnMessages(body.messages);
  const defaults = gw.host.resolveModelChoice({});
  const selection = selectModel(gw.host.config, body.model, defaults.model);
  const input = {
    sessionId: newId("openai"),
    text,
    channel: "openai",
    historyOverride: history,
    ...(body.user ? { userId: body.user } : {}),
    ...(selection.provider ? { provider: selection.provider } : {}),
    ...(selection.model ? { model: selection.model } : {}),
  };
  const id = `chatcmpl-${crypto.randomUUID().replaceAll("-", "")}`;
  const created = Math.floor(gw.now() / 1000);
  const model = selection.reported;

  if (!body.stream) {
    const result = await runGatewayTurn(gw, { ...input, signal: request.signal });
    const completion: ChatCompletion = {
      id,
      object: "chat.completion",
      created,
      model,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: result.text, refusal: null },
          finish_reason: "stop",
          logprobs: null,
        },
      ],
      usage: result.usage,
    };
    return jsonResponse(completion);
  }

  preflight(gw, input);
  const includeUsage = body.stream_options?.include_usage === true;
  const chunk = (
    delta: ChatCompletionChunk["choices"][number]["delta"],
    finish: "stop" | null,
  ): ChatCompletionChunk => ({
    id,
    object: "chat.completion.chunk",
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(includeUsage ? { usage: null } : {}),
  });
  return sseResponse(async (sse, signal) => {
    sse.send(null, chunk({ role: "assistant", content: "" }, null));
    try {
      const result = await runGatewayTurn(gw, {
        ...input,
        signal,
        observer: { onDelta: (delta) => sse.send(null, chunk({ content: delta }, null)) },
      });
      sse.send(null, chunk({}, "stop"));
      if (includeUsage)
        sse.send(null, { id, object: "chat.completion.chunk", created, model, choices: [], usage: result.usage });
    } catch (thrown) {
      const error = toPrxError(thrown);
      gw.logger.warn(`streamed chat completion failed: ${error.message}`, { code: error.code });
      sse.send(null, { error: { message: error.message, type: "server_error", code: error.code } });
    }
    sse.raw("[DONE]");
  });
}

export function listModels(gw: GatewayContext): Response {
  const created = Math.floor(gw.startedAt / 1000);
  const data = modelCatalog(gw.host.config, gw.host.resolveModelChoice({})).map((entry) => ({
    id: entry.id,
    object: "model" as const,
    created,
    owned_by: entry.owned_by,
  }));
  return jsonResponse({ object: "list", data });
}
