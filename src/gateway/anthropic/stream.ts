import type { TurnInput } from "../../agent/types.ts";
import { toPrxError } from "../../core/errors.ts";
import type { GatewayContext } from "../context.ts";
import { logStreamEnd, statusOf } from "../errors.ts";
import { preflight } from "../reply.ts";
import { sseResponse, type SseWriter } from "../sse.ts";
import { runGatewayTurn } from "../turns.ts";
import { anthropicErrorBody, anthropicStatus } from "./errors.ts";
import { toolUseBlock, wireUsage } from "./wire-parts.ts";
import { StopScanner } from "./stop-sequences.ts";

export interface MessageStreamMeta {
  id: string;
  model: string;
  stops: readonly string[];
}

/**
 * A message as Anthropic streams it, each SSE event named after its `type`: message_start (empty content), ping,
 * then per block content_block_start, content_block_delta (text_delta for text, one input_json_delta with a client
 * tool call's whole input), content_block_stop; then message_delta (stop_reason, usage) and message_stop. A failure
 * after the stream started is an `error` event in Anthropic's error shape.
 */
export function streamMessage(
  gw: GatewayContext,
  input: Omit<TurnInput, "signal" | "observer">,
  meta: MessageStreamMeta,
  clientSignal?: AbortSignal,
): Promise<Response> {
  const plan = preflight(gw, input);
  return sseResponse(async (writer, signal) => {
    const send = (type: string, data: Record<string, unknown>) => writer.send(type, { type, ...data });
    send("message_start", {
      message: {
        id: meta.id,
        type: "message",
        role: "assistant",
        content: [],
        model: meta.model,
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: null, cache_read_input_tokens: null },
      },
    });
    send("ping", {});
    const scanner = meta.stops.length > 0 ? new StopScanner(meta.stops) : null;
    let index = 0;
    let textOpen = false;
    const text = (piece: string) => {
      if (piece === "") return;
      if (!textOpen) {
        textOpen = true;
        send("content_block_start", { index, content_block: { type: "text", text: "" } });
      }
      send("content_block_delta", { index, delta: { type: "text_delta", text: piece } });
    };
    try {
      const result = await runGatewayTurn(
        gw,
        { ...input, signal, observer: { onDelta: (delta) => text(scanner ? scanner.push(delta) : delta) } },
        { plan },
      );
      if (scanner && scanner.stopped === null) text(scanner.flush());
      const stopped = scanner?.stopped ?? null;
      const calls = stopped === null ? (result.clientToolCalls ?? []).map(toolUseBlock) : [];
      if (!textOpen && calls.length === 0) {
        textOpen = true;
        send("content_block_start", { index, content_block: { type: "text", text: "" } });
      }
      if (textOpen) send("content_block_stop", { index: index++ });
      for (const call of calls) {
        send("content_block_start", { index, content_block: { ...call, input: {} } });
        send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(call.input) } });
        send("content_block_stop", { index: index++ });
      }
      send("message_delta", {
        delta: { stop_reason: stopped !== null ? "stop_sequence" : calls.length > 0 ? "tool_use" : "end_turn", stop_sequence: stopped },
        usage: wireUsage(result.usage),
      });
      send("message_stop", {});
    } catch (thrown) {
      failed(gw, writer, thrown);
    }
  }, { signal: clientSignal });
}

function failed(gw: GatewayContext, writer: SseWriter, thrown: unknown): void {
  const error = toPrxError(thrown);
  logStreamEnd(gw.logger, "streamed message", error);
  const { type, error: detail } = anthropicErrorBody(error, anthropicStatus(statusOf(error)), null);
  writer.send("error", { type, error: detail });
}
