import { PrxError } from "../core/errors.ts";
import { imageUrlOf } from "../media/prepare.ts";
import { OpenAICompatibleProvider } from "./openai-compatible.ts";
import { joinUrl, protocolError, ProviderCall } from "./http.ts";
import {
  UpstreamEventSchema,
  UpstreamResponseSchema,
  type UpstreamItem,
  type UpstreamReasoningItem,
  type UpstreamResponse,
} from "./openai-responses-wire.ts";
import { excerpt } from "./response-errors.ts";
import { DeltaJoiner } from "./delta-joiner.ts";
import { readSseJsonReads } from "./sse.ts";
import type { ChatMessage, ChatRequest, ChatResponse, StreamDelta, ToolCall, ToolSpec, Usage } from "./types.ts";

/** Tool calls whose reasoning items this provider keeps for the next request of the turn (oldest dropped first). */
export const REASONING_CARRY_MAX_CALLS = 1024;

/**
 * A provider whose upstream speaks the OpenAI Responses API (`kind = "openai-responses"`). Nothing is kept upstream
 * (`store: false`); a reasoning model's encrypted reasoning items (`include: ["reasoning.encrypted_content"]`) are
 * kept here by the id of the tool calls they led to and sent back before those calls, so the model keeps its
 * reasoning across the tool calls of a turn. Everything else (key and headers, the model list, embeddings and
 * transcription at /embeddings and /audio/transcriptions, errors, timeouts and retries) is the OpenAI-compatible
 * provider's.
 */
export class OpenAIResponsesProvider extends OpenAICompatibleProvider {
  /** Reasoning items by the call id of the first tool call they preceded; bounded, oldest first out. */
  private readonly reasoning = new Map<string, UpstreamReasoningItem[]>();

  override async chat(request: ChatRequest): Promise<ChatResponse> {
    const url = joinUrl(this.options.baseUrl, "responses");
    const streaming = request.onDelta !== undefined;
    const maxTokens = request.maxTokens ?? this.options.maxTokens;
    const body: Record<string, unknown> = {
      model: request.model,
      input: this.toInput(request.messages),
      store: false,
      include: ["reasoning.encrypted_content"],
    };
    if (request.tools?.length) body.tools = toResponsesTools(request.tools);
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (maxTokens !== undefined) body.max_output_tokens = maxTokens;
    // the Responses API's text.format holds a JSON schema's name, schema and strictness flat
    if (request.responseFormat) body.text = { format: request.responseFormat };
    if (streaming) body.stream = true;
    const call = new ProviderCall(this.target, this.timeoutMs(), request.signal);
    try {
      const response = await call.fetch(this.fetchImpl, url, { method: "POST", headers: this.headers(), body: JSON.stringify(body) });
      const type = response.headers.get("content-type") ?? "";
      let upstream: UpstreamResponse;
      if (streaming && response.body && type.includes("text/event-stream")) {
        upstream = await this.readEvents(response.body, call, request.onDelta!);
      } else {
        const json = await call.readJson(response, url, this.maxBytes());
        const parsed = UpstreamResponseSchema.safeParse(json);
        if (!parsed.success) throw protocolError(this.name, `unexpected response shape from ${url}: ${excerpt(JSON.stringify(json))}`);
        upstream = parsed.data;
      }
      const result = this.toChatResponse(upstream, request.model);
      if (streaming && !type.includes("text/event-stream")) emitWhole(result, request.onDelta!);
      return result;
    } catch (error) {
      throw call.fail(error, url);
    } finally {
      call.dispose();
    }
  }

  /** The conversation as Responses input items, with the reasoning that led to each earlier tool call before it. */
  private toInput(messages: ChatMessage[]): unknown[] {
    const input: unknown[] = [];
    for (const message of messages) {
      if (message.role === "tool") {
        input.push({ type: "function_call_output", call_id: message.tool_call_id ?? "", output: message.content });
        continue;
      }
      if (message.role === "assistant") {
        if (message.content !== "") input.push({ role: "assistant", content: message.content });
        const first = message.tool_calls?.[0];
        if (first) input.push(...(this.reasoning.get(first.id) ?? []));
        for (const call of message.tool_calls ?? []) {
          input.push({ type: "function_call", call_id: call.id, name: call.name, arguments: call.arguments });
        }
        continue;
      }
      const images = message.media?.filter((ref) => ref.kind === "image") ?? [];
      if (images.length === 0) {
        input.push({ role: message.role, content: message.content });
        continue;
      }
      const parts: unknown[] = message.content === "" ? [] : [{ type: "input_text", text: message.content }];
      for (const ref of images) parts.push({ type: "input_image", image_url: imageUrlOf(ref), detail: ref.detail ?? "auto" });
      input.push({ role: message.role, content: parts });
    }
    return input;
  }

  private toChatResponse(upstream: UpstreamResponse, requestedModel: string): ChatResponse {
    if (upstream.status === "failed") {
      throw new PrxError("PROVIDER_HTTP", `${this.name}: the response failed: ${excerpt(upstream.error?.message ?? "no reason given")}`, {
        hint: "the provider failed the answer: retry, or add [reliability] fallback_providers",
        status: 502,
        details: { provider: this.name },
      });
    }
    let text = "";
    const toolCalls: ToolCall[] = [];
    const reasoning: UpstreamReasoningItem[] = [];
    for (const item of upstream.output) {
      if (isType(item, "message")) {
        for (const part of item.content) text += part.type === "output_text" ? (part.text ?? "") : part.type === "refusal" ? (part.refusal ?? "") : "";
      } else if (isType(item, "function_call")) {
        toolCalls.push({ id: item.call_id, name: item.name, arguments: item.arguments === "" ? "{}" : item.arguments });
      } else if (isType(item, "reasoning") && item.encrypted_content) {
        reasoning.push(item);
      }
    }
    if (toolCalls.length > 0 && reasoning.length > 0) this.keepReasoning(toolCalls[0]!.id, reasoning);
    const response: ChatResponse = { text, toolCalls, model: upstream.model ?? requestedModel, provider: this.name };
    if (upstream.usage) {
      const { input_tokens, output_tokens, total_tokens } = upstream.usage;
      response.usage = { prompt_tokens: input_tokens, completion_tokens: output_tokens, total_tokens } satisfies Usage;
    }
    response.finishReason =
      upstream.status === "incomplete" ? (upstream.incomplete_details?.reason ?? "length") : toolCalls.length > 0 ? "tool_calls" : "stop";
    return response;
  }

  private keepReasoning(callId: string, items: UpstreamReasoningItem[]): void {
    this.reasoning.set(callId, items);
    while (this.reasoning.size > REASONING_CARRY_MAX_CALLS) this.reasoning.delete(this.reasoning.keys().next().value!);
  }

  /** Streamed events: text and tool call pieces as deltas; the final response is response.completed's (or .incomplete's). */
  private async readEvents(body: ReadableStream<Uint8Array>, call: ProviderCall, onDelta: (delta: StreamDelta) => void): Promise<UpstreamResponse> {
    const options = { provider: this.name, maxEventBytes: this.maxEventBytes(), onChunk: () => call.touch() };
    const calls = new Map<number, number>();
    const deltas = new DeltaJoiner(onDelta);
    for await (const read of readSseJsonReads(body, options)) {
      try {
        for (const { json } of read) {
          const parsed = UpstreamEventSchema.safeParse(json);
          if (!parsed.success) throw protocolError(this.name, `unexpected stream event: ${excerpt(JSON.stringify(json))}`);
          const event = parsed.data;
          switch (event.type) {
            case "response.output_text.delta":
              if (event.delta) deltas.text(event.delta);
              break;
            case "response.output_item.added":
              if (event.item && isType(event.item, "function_call") && event.output_index !== undefined) {
                const index = calls.size;
                calls.set(event.output_index, index);
                deltas.other({ type: "tool_call", index, id: event.item.call_id, name: event.item.name });
              }
              break;
            case "response.function_call_arguments.delta": {
              const index = event.output_index === undefined ? undefined : calls.get(event.output_index);
              if (index !== undefined && event.delta) deltas.other({ type: "tool_call", index, argumentsDelta: event.delta });
              break;
            }
            case "response.completed":
            case "response.incomplete":
            case "response.failed": {
              const done = UpstreamResponseSchema.safeParse(event.response);
              if (!done.success) throw protocolError(this.name, `unexpected ${event.type} event: ${excerpt(JSON.stringify(json))}`);
              return done.data;
            }
            case "error":
              throw new PrxError("PROVIDER_HTTP", `${this.name}: error in stream: ${excerpt(event.message ?? event.code ?? "")}`, {
                hint: "the provider failed mid-answer: retry, or add [reliability] fallback_providers",
                status: 502,
                details: { provider: this.name },
              });
          }
        }
      } finally {
        deltas.flush();
      }
    }
    throw protocolError(this.name, "the stream ended before response.completed");
  }
}

function isType<T extends string>(item: UpstreamItem, type: T): item is Extract<UpstreamItem, { type: T }> {
  return item.type === type;
}

export function toResponsesTools(tools: ToolSpec[]): unknown[] {
  return tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    strict: tool.strict ?? false,
  }));
}

/** An upstream that ignored `stream: true` still gets its answer delivered as deltas. */
function emitWhole(result: ChatResponse, onDelta: (delta: StreamDelta) => void): void {
  if (result.text) onDelta({ type: "text", text: result.text });
  result.toolCalls.forEach((call, index) => onDelta({ type: "tool_call", index, id: call.id, name: call.name, argumentsDelta: call.arguments }));
}
