import { PrxError } from "../core/errors.ts";
import { JsonStandIns } from "../core/json/index.ts";
import { secretFromEnv } from "../config/secrets.ts";
import {
  joinUrl,
  missingKeyError,
  protocolError,
  ProviderCall,
} from "./http.ts";
import { excerpt } from "./response-errors.ts";
import { DeltaJoiner } from "./delta-joiner.ts";
import { readSseJsonReads } from "./sse.ts";
import type { OpenAIChatResponse, OpenAIRequestMessage } from "./openai-wire.ts";
import { acceptTextChunk, acceptTextResponse } from "./openai-response-accept.ts";
import { loadedOpenaiWire, openaiWire } from "./wire.ts";
import type { ChatMessage, ChatRequest, ChatResponse, ResponseFormat, ToolCall, ToolSpec, Usage } from "./types.ts";
import type { EmbedRequest, EmbedResponse, TranscribeRequest, TranscribeResponse } from "./types.ts";
import { HttpProvider, type HttpProviderOptions } from "./http-provider.ts";
import { BodyBuffer } from "./body-buffer.ts";
import { embedOpenAI, type EmbeddingEndpoint } from "./openai-embeddings.ts";
import { transcribeOpenAI } from "./openai-transcribe.ts";
import { imageUrlOf, imageUrlPieces } from "../media/prepare.ts";

/** The wire schemas, loaded with the first answer the hand check does not accept. */
const schemas = async () => loadedOpenaiWire() ?? (await openaiWire());

export { DEFAULT_PROVIDER_TIMEOUT_MS, type HttpProviderOptions } from "./http-provider.ts";

/** `standIns`: image data goes in as stand-ins, to be filled in after the body is serialized (see JsonStandIns). */
export function toOpenAIMessages(messages: ChatMessage[], standIns?: JsonStandIns): OpenAIRequestMessage[] {
  return messages.map((message): OpenAIRequestMessage => {
    if (message.role === "tool") {
      return { role: "tool", tool_call_id: message.tool_call_id ?? "", content: message.content };
    }
    if (message.role === "assistant" && message.tool_calls && message.tool_calls.length > 0) {
      return {
        role: "assistant",
        content: message.content === "" ? null : message.content,
        tool_calls: message.tool_calls.map((call) => ({
          id: call.id,
          type: "function" as const,
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    }
    if (message.media?.length) {
      // images after the text, as OpenAI's content parts (media here carry their bytes or an https URL)
      const parts: Array<Record<string, unknown>> = message.content === "" ? [] : [{ type: "text", text: message.content }];
      for (const ref of message.media) {
        if (ref.kind !== "image") continue;
        const url = standIns && ref.data !== undefined ? standIns.stand(...imageUrlPieces(ref)) : imageUrlOf(ref);
        parts.push({ type: "image_url", image_url: ref.detail ? { url, detail: ref.detail } : { url } });
      }
      return { role: message.role, content: parts as OpenAIRequestMessage["content"] };
    }
    return { role: message.role, content: message.content };
  });
}

export function toOpenAITools(tools: ToolSpec[]) {
  return tools.map((tool) => ({
    type: "function" as const,
    function: {
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      ...(tool.strict === undefined ? {} : { strict: tool.strict }),
    },
  }));
}

/** Each tool's JSON in a request, made once per ToolSpec object: specs live as long as their tool, bodies do not. */
const toolJson = new WeakMap<ToolSpec, string>();

/** Whole tool lists, for the registry's answer that stays the same array while no tool changes. */
const listJson = new WeakMap<readonly ToolSpec[], string>();

/** `JSON.stringify(toOpenAITools(tools))`, without re-serializing the same specs on every turn. */
export function toolsJson(tools: ToolSpec[]): string {
  const cached = listJson.get(tools);
  if (cached !== undefined) return cached;
  let out = "[";
  for (let i = 0; i < tools.length; i++) {
    const spec = tools[i]!;
    let json = toolJson.get(spec);
    if (json === undefined) toolJson.set(spec, (json = JSON.stringify(toOpenAITools([spec])[0])));
    out += i === 0 ? json : `,${json}`;
  }
  out += "]";
  listJson.set(tools, out);
  return out;
}

/** The JSON of `body` with `"tools": <toolsJson>` added (when there are tools), its image data still stood in. */
function withTools(body: Record<string, unknown>, tools: ToolSpec[] | undefined): string {
  const json = JSON.stringify(body);
  return tools && tools.length > 0 ? `${json.slice(0, -1)},"tools":${toolsJson(tools)}}` : json;
}

/** Accumulates streamed tool-call fragments by their index. */
export class ToolCallAccumulator {
  private readonly calls = new Map<number, { id: string; name: string; arguments: string }>();

  add(index: number, id?: string | null, name?: string | null, args?: string | null): void {
    const entry = this.calls.get(index) ?? { id: "", name: "", arguments: "" };
    if (id) entry.id = id;
    // Most servers send the whole name once; some repeat it in every delta, a few split it.
    if (name && name !== entry.name) entry.name += name;
    if (args) entry.arguments += args;
    this.calls.set(index, entry);
  }

  result(): ToolCall[] {
    return [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => ({
        id: call.id || `call_${index}`,
        name: call.name,
        arguments: call.arguments === "" ? "{}" : call.arguments,
      }));
  }
}

export class OpenAICompatibleProvider extends HttpProvider {
  /** Bodies of requests with image data are written here (see BodyBuffer). */
  private readonly bodyBuffer = new BodyBuffer();
  /** Present when `embedding_model` is configured (see Provider.embed). */
  readonly embed?: (request: EmbedRequest) => Promise<EmbedResponse>;
  /** Present when `transcription_model` is configured (see Provider.transcribe). */
  readonly transcribe?: (request: TranscribeRequest) => Promise<TranscribeResponse>;

  constructor(options: HttpProviderOptions) {
    super(options);
    const endpoint = (model: string): EmbeddingEndpoint => ({
      target: this.target,
      baseUrl: options.baseUrl,
      model,
      timeoutMs: this.timeoutMs(),
      maxBytes: this.maxBytes(),
      fetch: this.fetchImpl,
      headers: () => this.headers(),
    });
    const model = options.embeddingModel;
    if (model) this.embed = (request) => embedOpenAI(endpoint(model), request);
    const heard = options.transcriptionModel;
    if (heard) this.transcribe = (request) => transcribeOpenAI(endpoint(heard), request);
  }

  protected modelsUrl(): string {
    return joinUrl(this.options.baseUrl, "models");
  }

  protected headers(): Record<string, string> {
    const headers: Record<string, string> = { "content-type": "application/json", ...this.options.headers };
    if (this.options.keyEnv) {
      const key = secretFromEnv(this.options.keyEnv, this.options.env);
      if (!key) throw missingKeyError(this.name, this.options.keyEnv);
      headers.authorization = `Bearer ${key}`;
    }
    return headers;
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const url = joinUrl(this.options.baseUrl, "chat/completions");
    const streaming = request.onDelta !== undefined;
    const maxTokens = request.maxTokens ?? this.options.maxTokens;
    const standIns = new JsonStandIns();
    const body: Record<string, unknown> = { model: request.model, messages: toOpenAIMessages(request.messages, standIns) };
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (maxTokens !== undefined) body.max_tokens = maxTokens;
    if (request.responseFormat) body.response_format = chatResponseFormat(request.responseFormat);
    if (streaming) {
      body.stream = true;
      body.stream_options = { include_usage: true };
    }
    const call = new ProviderCall(this.target, this.timeoutMs(), request.signal);
    try {
      const document = withTools(body, request.tools);
      const written = standIns.empty ? null : this.bodyBuffer.write(standIns.parts(document));
      let response: Response;
      try {
        response = await call.fetch(this.fetchImpl, url, { method: "POST", headers: this.headers(), body: written?.bytes ?? document });
      } finally {
        written?.release();
      }
      const type = response.headers.get("content-type") ?? "";
      if (streaming && response.body && type.includes("text/event-stream")) {
        return await this.readStream(response.body, call, request);
      }
      const json = await call.readJson(response, url, this.maxBytes());
      const result = await this.parseResponse(json, request.model, url);
      if (request.onDelta) emitWhole(result, request.onDelta);
      return result;
    } catch (error) {
      throw call.fail(error, url);
    } finally {
      call.dispose();
    }
  }

  private async parseResponse(json: unknown, requestedModel: string, url: string): Promise<ChatResponse> {
    // the common answer is checked by hand; the wire schemas load only for the rest
    const fast = acceptTextResponse(json);
    const parsed = fast
      ? { success: true as const, data: fast }
      : (await schemas()).OpenAIChatResponseSchema.safeParse(json);
    if (!parsed.success) {
      throw protocolError(this.name, `unexpected response shape from ${url}: ${excerpt(JSON.stringify(json))}`);
    }
    const choice = parsed.data.choices[0]!;
    const response: ChatResponse = {
      text: choice.message.content ?? "",
      toolCalls: (choice.message.tool_calls ?? []).map((call) => ({
        id: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
      })),
      model: parsed.data.model ?? requestedModel,
      provider: this.name,
    };
    const usage = parsed.data.usage;
    if (usage) response.usage = fromOpenAIUsage(usage);
    if (choice.finish_reason) response.finishReason = choice.finish_reason;
    return response;
  }

  private async readStream(
    body: ReadableStream<Uint8Array>,
    call: ProviderCall,
    request: ChatRequest,
  ): Promise<ChatResponse> {
    const deltas = new DeltaJoiner(request.onDelta!);
    const tools = new ToolCallAccumulator();
    let text = "";
    let model = request.model;
    let usage: Usage | undefined;
    let finishReason: string | undefined;
    const options = {
      provider: this.name,
      maxEventBytes: this.maxEventBytes(),
      onChunk: () => call.touch(),
    };
    for await (const read of readSseJsonReads(body, options)) {
      try {
        for (const { json } of read) {
          const fast = acceptTextChunk(json);
          const parsed = fast
            ? { success: true as const, data: fast }
            : (await schemas()).OpenAIChunkSchema.safeParse(json);
          if (!parsed.success) throw protocolError(this.name, `unexpected stream chunk: ${excerpt(JSON.stringify(json))}`);
          const chunk = parsed.data;
          if (chunk.error) {
            const status = typeof chunk.error.code === "number" ? chunk.error.code : 502;
            throw new PrxError("PROVIDER_HTTP", `${this.name}: error in stream: ${excerpt(chunk.error.message ?? "")}`, {
              hint: "the provider failed mid-answer: retry, or add [reliability] fallback_providers",
              status: 502,
              details: { status, provider: this.name },
            });
          }
          if (chunk.model) model = chunk.model;
          if (chunk.usage) usage = fromOpenAIUsage(chunk.usage);
          const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
          if (!choice) continue;
          if (choice.finish_reason) finishReason = choice.finish_reason;
          const delta = choice.delta;
          if (delta?.content) {
            text += delta.content;
            deltas.text(delta.content);
          }
          for (const piece of delta?.tool_calls ?? []) {
            tools.add(piece.index, piece.id, piece.function?.name, piece.function?.arguments);
            const out: { type: "tool_call"; index: number; id?: string; name?: string; argumentsDelta?: string } = {
              type: "tool_call",
              index: piece.index,
            };
            if (piece.id) out.id = piece.id;
            if (piece.function?.name) out.name = piece.function.name;
            if (piece.function?.arguments) out.argumentsDelta = piece.function.arguments;
            deltas.other(out);
          }
        }
      } finally {
        deltas.flush();
      }
    }
    const response: ChatResponse = { text, toolCalls: tools.result(), model, provider: this.name };
    if (usage) response.usage = usage;
    if (finishReason) response.finishReason = finishReason;
    return response;
  }
}

/** The usage prx keeps: the cached count only when the server reported one. */
function fromOpenAIUsage(usage: NonNullable<OpenAIChatResponse["usage"]>): Usage {
  const { prompt_tokens, completion_tokens, total_tokens } = usage;
  const cached = usage.prompt_tokens_details?.cached_tokens;
  return typeof cached === "number"
    ? { prompt_tokens, completion_tokens, total_tokens, prompt_tokens_details: { cached_tokens: cached } }
    : { prompt_tokens, completion_tokens, total_tokens };
}

/** A server that ignored `stream: true` still gets its answer delivered as deltas. */
export function emitWhole(result: ChatResponse, onDelta: NonNullable<ChatRequest["onDelta"]>): void {
  if (result.text) onDelta({ type: "text", text: result.text });
  result.toolCalls.forEach((call, index) =>
    onDelta({ type: "tool_call", index, id: call.id, name: call.name, argumentsDelta: call.arguments }),
  );
}

/** Chat completions' `response_format`: a JSON schema sits in `json_schema` beside its name. */
function chatResponseFormat(format: ResponseFormat): Record<string, unknown> {
  if (format.type === "json_object") return { type: "json_object" };
  const { type, ...jsonSchema } = format;
  return { type, json_schema: jsonSchema };
}
