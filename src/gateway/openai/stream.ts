import type { TurnInput } from "../../agent/types.ts";
import { toPrxError } from "../../core/errors.ts";
import type { GatewayContext } from "../context.ts";
import { logStreamEnd, openaiErrorBody } from "../errors.ts";
import { preflight } from "../reply.ts";
import { sseResponse } from "../sse.ts";
import { runGatewayTurn } from "../turns.ts";
import { answerFormatFailure } from "../answer-format.ts";
import type { ChatCompletionChunk } from "./schemas.ts";

type Delta = ChatCompletionChunk["choices"][number]["delta"];
type Finish = ChatCompletionChunk["choices"][number]["finish_reason"];

export interface StreamMeta {
  id: string;
  created: number;
  model: string;
  includeUsage: boolean;
}

/**
 * A chat completion as OpenAI streams it: `data:` chunks of object chat.completion.chunk, then `data: [DONE]`.
 * Text: a role chunk (content "") before the first piece, one chunk per piece, a finish chunk "stop". Client tool
 * calls: the role rides on the first call's chunk (content null) unless text came first; each call is a chunk with its
 * id and name (arguments "") and one with its arguments; the finish chunk says "tool_calls". With include_usage, a
 * last chunk with no choices carries the usage. A failure after the stream started is an `error` data line.
 */
export function streamCompletion(
  gw: GatewayContext,
  input: Omit<TurnInput, "signal" | "observer">,
  meta: StreamMeta,
  clientSignal?: AbortSignal,
): Promise<Response> {
  const plan = preflight(gw, input);
  const { id, created, model, includeUsage } = meta;
  // every chunk is this template around its delta (the keys in the order JSON.stringify of the chunk object gives)
  const head = `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${JSON.stringify(created)},"model":${JSON.stringify(model)},"choices":[{"index":0,"delta":`;
  const usageTail = includeUsage ? ',"usage":null}' : "}";
  const chunk = (delta: Delta, finish: Finish = null): string =>
    `${head}${JSON.stringify(delta)},"logprobs":null,"finish_reason":${finish === null ? "null" : JSON.stringify(finish)}}]${usageTail}`;
  return sseResponse(async (sse, signal) => {
    let started = false;
    const start = () => {
      if (started) return;
      started = true;
      sse.sendJson(null, chunk({ role: "assistant", content: "", refusal: null }));
    };
    try {
      const result = await runGatewayTurn(gw, {
        ...input,
        signal,
        observer: {
          onDelta: (text) => {
            start();
            sse.sendJson(null, chunk({ content: text }));
          },
        },
      }, { plan });
      if (result.formatProblem !== undefined) throw answerFormatFailure(result.formatProblem, "response_format");
      const calls = result.clientToolCalls ?? [];
      calls.forEach((call, index) => {
        const named = { index, id: call.id, type: "function" as const, function: { name: call.name, arguments: "" } };
        if (started) sse.sendJson(null, chunk({ tool_calls: [named] }));
        else sse.sendJson(null, chunk({ role: "assistant", content: null, tool_calls: [named], refusal: null }));
        started = true;
        if (call.arguments) sse.sendJson(null, chunk({ tool_calls: [{ index, function: { arguments: call.arguments } }] }));
      });
      start();
      sse.sendJson(null, chunk({}, calls.length > 0 ? "tool_calls" : "stop"));
      if (includeUsage)
        sse.send(null, { id, object: "chat.completion.chunk", created, model, choices: [], usage: result.usage });
    } catch (thrown) {
      const error = toPrxError(thrown);
      logStreamEnd(gw.logger, "streamed chat completion", error);
      sse.send(null, openaiErrorBody(error));
    }
    sse.raw("[DONE]");
  }, { signal: clientSignal });
}
