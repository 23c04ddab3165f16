import { toPrxError } from "../../core/errors.ts";
import type { GatewayContext } from "../context.ts";
import { logStreamEnd, openaiErrorBody } from "../errors.ts";
import { preflight } from "../reply.ts";
import { sseResponse } from "../sse.ts";
import { runGatewayTurn } from "../turns.ts";
import { answerFormatFailure } from "../answer-format.ts";
import { functionCallItem, messageItem } from "./convert.ts";
import { completedResponse, keepResponse, type PreparedResponse } from "./prepare.ts";
import type { OutputItem, ResponseObject, UnnumberedEvent } from "./schemas.ts";

const textPart = (text: string) => ({ type: "output_text" as const, text, annotations: [], logprobs: [] });

/**
 * A response as the Responses API streams it: typed events (`event: <type>`, data with the same `type` and an
 * increasing `sequence_number`). response.created and response.in_progress first; text as a message item
 * (output_item.added, content_part.added, output_text.delta..., output_text.done, content_part.done,
 * output_item.done) opened by the first piece of text; each client tool call as a function_call item with its
 * arguments; then response.completed. A failure after the stream started is `error`, then response.failed.
 */
export function streamResponse(gw: GatewayContext, prepared: PreparedResponse, clientSignal?: AbortSignal): Promise<Response> {
  const plan = preflight(gw, prepared.turn);
  const { base } = prepared;
  return sseResponse(async (sse, signal) => {
    let sequence = 0;
    const send = (event: UnnumberedEvent) => sse.send(event.type, { ...event, sequence_number: sequence++ });
    send({ type: "response.created", response: base });
    send({ type: "response.in_progress", response: base });

    const output: OutputItem[] = [];
    let text: string | null = null;
    const where = () => ({ item_id: messageItem(base.id, 0, "").id, output_index: 0, content_index: 0 });
    const openText = () => {
      if (text !== null) return;
      text = "";
      send({ type: "response.output_item.added", output_index: 0, item: messageItem(base.id, 0, "", "in_progress") });
      send({ type: "response.content_part.added", ...where(), part: textPart("") });
    };
    const delta = (piece: string) => {
      openText();
      text += piece;
      send({ type: "response.output_text.delta", ...where(), delta: piece, logprobs: [] });
    };
    try {
      const result = await runGatewayTurn(gw, { ...prepared.turn, signal, observer: { onDelta: delta } }, { plan });
      if (result.formatProblem !== undefined) throw answerFormatFailure(result.formatProblem, "text.format");
      const calls = result.clientToolCalls ?? [];
      if (text === null && (result.text !== "" || calls.length === 0)) {
        openText();
        if (result.text !== "") delta(result.text);
      }
      if (text !== null) {
        const done: string = text;
        send({ type: "response.output_text.done", ...where(), text: done, logprobs: [] });
        send({ type: "response.content_part.done", ...where(), part: textPart(done) });
        const item = messageItem(base.id, 0, done);
        send({ type: "response.output_item.done", output_index: 0, item });
        output.push(item);
      }
      for (const call of calls) {
        const index = output.length;
        const item = functionCallItem(base.id, index, call);
        send({ type: "response.output_item.added", output_index: index, item: functionCallItem(base.id, index, call, "in_progress") });
        if (call.arguments !== "") {
          send({ type: "response.function_call_arguments.delta", item_id: item.id, output_index: index, delta: call.arguments });
        }
        send({ type: "response.function_call_arguments.done", item_id: item.id, output_index: index, name: call.name, arguments: call.arguments });
        send({ type: "response.output_item.done", output_index: index, item });
        output.push(item);
      }
      const response = completedResponse(prepared, result, output);
      await keepResponse(gw, prepared, response);
      send({ type: "response.completed", response });
    } catch (thrown) {
      const error = toPrxError(thrown);
      logStreamEnd(gw.logger, "streamed response", error);
      const wire = openaiErrorBody(error).error;
      send({ type: "error", code: wire.code, message: wire.message, param: wire.param });
      const failed: ResponseObject = { ...base, status: "failed", output, error: { code: wire.code, message: wire.message } };
      send({ type: "response.failed", response: failed });
    }
  }, { signal: clientSignal });
}
