import { PrxError } from "../core/errors.ts";
import { JsonStandIns } from "../core/json/index.ts";
import { secretFromEnv } from "../config/secrets.ts";
import { joinUrl, missingKeyError, protocolError, ProviderCall } from "./http.ts";
import { excerpt } from "./response-errors.ts";
import { DeltaJoiner } from "./delta-joiner.ts";
import { readSseJsonReads } from "./sse.ts";
import { ANTHROPIC_STREAM_EVENT_TYPES, ANTHROPIC_VERSION } from "./anthropic-constants.ts";
import type { AnthropicUsage } from "./anthropic-wire.ts";
import { anthropicWire, loadedAnthropicWire } from "./wire.ts";
import { acceptTextEvent, acceptTextMessage } from "./anthropic-response-accept.ts";
import { mapStopReason, mapUsage, statusForErrorType, toAnthropicMessages, toAnthropicTools } from "./anthropic-map.ts";
import { HttpProvider } from "./http-provider.ts";
import { emitWhole } from "./openai-compatible.ts";
import type { ChatRequest, ChatResponse, ToolCall } from "./types.ts";

/** max_tokens is mandatory in the Messages API; this is used when neither the request nor the config sets it. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

/** The wire schemas, loaded with the first answer the hand check does not accept. */
const schemas = async () => loadedAnthropicWire() ?? (await anthropicWire());

type Block = { kind: "text" } | { kind: "tool"; ordinal: number; id: string; name: string; json: string };

export class AnthropicProvider extends HttpProvider {
  protected modelsUrl(): string {
    return anthropicUrl(this.options.baseUrl, "models");
  }

  protected headers(): Record<string, string> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "anthropic-version": ANTHROPIC_VERSION,
      ...this.options.headers,
    };
    if (this.options.keyEnv) {
      const key = secretFromEnv(this.options.keyEnv, this.options.env);
      if (!key) throw missingKeyError(this.name, this.options.keyEnv);
      headers["x-api-key"] = key;
    }
    return headers;
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const url = anthropicUrl(this.options.baseUrl, "messages");
    const streaming = request.onDelta !== undefined;
    const standIns = new JsonStandIns();
    const { system, messages } = toAnthropicMessages(request.messages, standIns);
    const body: Record<string, unknown> = {
      model: request.model,
      max_tokens: request.maxTokens ?? this.options.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
      messages,
    };
    if (system !== undefined) body.system = system;
    if (request.tools && request.tools.length > 0) body.tools = toAnthropicTools(request.tools);
    // Anthropic accepts 0..1 where prx (OpenAI-style) allows up to 2.
    if (request.temperature !== undefined) body.temperature = Math.min(1, request.temperature);
    if (streaming) body.stream = true;
    const call = new ProviderCall(this.target, this.timeoutMs(), request.signal);
    try {
      const init = { method: "POST", headers: this.headers(), body: standIns.fill(JSON.stringify(body)) };
      const response = await call.fetch(this.fetchImpl, url, init);
      const type = response.headers.get("content-type") ?? "";
      if (streaming && response.body && type.includes("text/event-stream")) {
        return await this.readStream(response.body, call, request);
      }
      const result = await this.parseResponse(await call.readJson(response, url, this.maxBytes()), url);
      if (request.onDelta) emitWhole(result, request.onDelta);
      return result;
    } catch (error) {
      throw call.fail(error, url);
    } finally {
      call.dispose();
    }
  }

  private async parseResponse(json: unknown, url: string): Promise<ChatResponse> {
    // the common answer (text blocks only) is checked by hand; the wire schemas load only for the rest
    const fast = acceptTextMessage(json);
    const parsed = fast ? { success: true as const, data: fast } : (await schemas()).AnthropicResponseSchema.safeParse(json);
    if (!parsed.success) {
      throw protocolError(this.name, `unexpected response shape from ${url}: ${excerpt(JSON.stringify(json))}`);
    }
    const message = parsed.data;
    let text = "";
    const toolCalls: ToolCall[] = [];
    for (const block of message.content) {
      const tool = block.type === "tool_use" ? (await schemas()).AnthropicToolUseBlockSchema.safeParse(block) : undefined;
      if (tool?.success) {
        toolCalls.push({ id: tool.data.id, name: tool.data.name, arguments: JSON.stringify(tool.data.input) });
      } else if (block.type === "text" && typeof block.text === "string") text += block.text;
    }
    const response: ChatResponse = { text, toolCalls, model: message.model, provider: this.name };
    response.usage = mapUsage(message.usage);
    const finish = mapStopReason(message.stop_reason);
    if (finish) response.finishReason = finish;
    return response;
  }

  private async readStream(
    body: ReadableStream<Uint8Array>,
    call: ProviderCall,
    request: ChatRequest,
  ): Promise<ChatResponse> {
    const deltas = new DeltaJoiner(request.onDelta!);
    const blocks = new Map<number, Block>();
    const tools: Extract<Block, { kind: "tool" }>[] = [];
    let text = "";
    let model = request.model;
    let usage: AnthropicUsage = {};
    let stopReason: string | null | undefined;
    const options = {
      provider: this.name,
      maxEventBytes: this.maxEventBytes(),
      onChunk: () => call.touch(),
    };
    for await (const read of readSseJsonReads(body, options)) {
      try {
        for (const { json } of read) {
          const type = (json as { type?: unknown } | null)?.type;
          if (!ANTHROPIC_STREAM_EVENT_TYPES.includes(type as never)) continue; // new event types are ignorable
          // a text answer's events are checked by hand; the wire schemas load only for the rest
          const fast = acceptTextEvent(json);
          const parsed = fast ? { success: true as const, data: fast } : (await schemas()).AnthropicStreamEventSchema.safeParse(json);
          if (!parsed.success) throw protocolError(this.name, `unexpected stream event: ${excerpt(JSON.stringify(json))}`);
          const event = parsed.data;
          switch (event.type) {
            case "message_start":
              model = event.message.model;
              usage = { ...usage, ...stripNulls(event.message.usage) };
              break;
            case "content_block_start": {
              const block = event.content_block;
              const use = block.type === "tool_use" ? (await schemas()).AnthropicToolUseBlockSchema.safeParse(block) : undefined;
              if (use?.success) {
                const { id, name } = use.data;
                const tool = { kind: "tool" as const, ordinal: tools.length, id, name, json: "" };
                tools.push(tool);
                blocks.set(event.index, tool);
                deltas.other({ type: "tool_call", index: tool.ordinal, id: tool.id, name: tool.name });
              } else if (block.type === "text") {
                blocks.set(event.index, { kind: "text" });
                const initial = typeof block.text === "string" ? block.text : "";
                if (initial) {
                  text += initial;
                  deltas.text(initial);
                }
              }
              break;
            }
            case "content_block_delta": {
              const delta = event.delta;
              const block = blocks.get(event.index);
              if (delta.type === "text_delta" && "text" in delta && typeof delta.text === "string") {
                text += delta.text;
                deltas.text(delta.text);
              } else if (delta.type === "input_json_delta" && "partial_json" in delta && block?.kind === "tool") {
                const piece = String(delta.partial_json);
                block.json += piece;
                if (piece) deltas.other({ type: "tool_call", index: block.ordinal, argumentsDelta: piece });
              }
              break;
            }
            case "message_delta":
              if (event.delta.stop_reason !== undefined) stopReason = event.delta.stop_reason;
              if (event.usage) usage = { ...usage, ...stripNulls(event.usage) };
              break;
            case "error": {
              const said = excerpt(event.error.message);
              throw new PrxError("PROVIDER_HTTP", `${this.name}: ${event.error.type} in stream: ${said}`, {
                hint: "the provider failed mid-answer: retry, or add [reliability] fallback_providers",
                status: 502,
                details: { status: statusForErrorType(event.error.type), provider: this.name },
              });
            }
            default:
              break; // content_block_stop, message_stop, ping
          }
        }
      } finally {
        deltas.flush();
      }
    }
    const toolCalls = tools.map((tool) => ({
      id: tool.id,
      name: tool.name,
      arguments: tool.json === "" ? "{}" : tool.json,
    }));
    const response: ChatResponse = { text, toolCalls, model, provider: this.name, usage: mapUsage(usage) };
    const finish = mapStopReason(stopReason);
    if (finish) response.finishReason = finish;
    return response;
  }
}

/** `{base_url}/v1/<path>`, accepting a base_url that already ends in /v1. */
export function anthropicUrl(baseUrl: string, path: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  return base.endsWith("/v1") ? joinUrl(base, path) : joinUrl(base, `v1/${path}`);
}

function stripNulls(usage: AnthropicUsage): AnthropicUsage {
  return Object.fromEntries(Object.entries(usage).filter(([, value]) => value !== null && value !== undefined));
}
