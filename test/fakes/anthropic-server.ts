/**
 * A fake Anthropic Messages API on 127.0.0.1 speaking the real wire format (JSON and the named-event SSE stream).
 * Same scripting as the OpenAI fake (FakeStep). Standalone: `bun test/fakes/anthropic-server.ts --port N ...`.
 */
import { AnthropicRequestSchema, type AnthropicRequest } from "../../src/providers/anthropic-wire.ts";
import {
  answerDelayMs,
  estimateTokens,
  hangResponse,
  parseUseTool,
  pieces,
  recordRequest,
  runStandalone,
  sseResponse,
  stepContent,
  StepSource,
  type FakeServer,
  type FakeServerOptions,
  type FakeStep,
  type RecordedRequest,
} from "./common.ts";

const ERROR_TYPES: Record<number, [string, string]> = {
  400: ["invalid_request_error", "invalid request"],
  401: ["authentication_error", "invalid x-api-key"],
  403: ["permission_error", "your API key does not have permission to use the specified resource"],
  404: ["not_found_error", "the requested resource could not be found"],
  429: ["rate_limit_error", "number of request tokens has exceeded your per-minute rate limit"],
  500: ["api_error", "an unexpected error has occurred internal to Anthropic's systems"],
  529: ["overloaded_error", "Overloaded"],
};

function anthropicError(
  status: number,
  type?: string,
  message?: string,
  headers: Record<string, string> = {},
): Response {
  const [defaultType, defaultMessage] = ERROR_TYPES[status] ?? ["api_error", `fake error ${status}`];
  const body = { type: "error", error: { type: type ?? defaultType, message: message ?? defaultMessage } };
  return Response.json(body, { status, headers: { ...headers, "request-id": "req_fake" } });
}

function blocksText(content: AnthropicRequest["messages"][number]["content"], kind: "text" | "tool_result"): string {
  if (typeof content === "string") return kind === "text" ? content : "";
  return content
    .filter((block) => block.type === kind)
    .map((block) => {
      const value = (block as { text?: unknown; content?: unknown }).text ?? (block as { content?: unknown }).content;
      if (typeof value === "string") return value;
      return Array.isArray(value) ? value.map((part: { text?: string }) => part.text ?? "").join("") : "";
    })
    .join("");
}

/** Default answer: "tool said: <result>" after tool results, a tool_use for "use tool <name> <json>", else echo. */
export function defaultAnthropicReply(body: AnthropicRequest): FakeStep {
  const last = body.messages.at(-1)!;
  const hasResult = typeof last.content !== "string" && last.content.some((block) => block.type === "tool_result");
  if (last.role === "user" && hasResult) {
    return { type: "text", text: `tool said: ${blocksText(last.content, "tool_result")}` };
  }
  const text = blocksText(last.content, "text");
  const call = parseUseTool(text, (body.tools ?? []).map((tool) => tool.name));
  if (call) return { type: "tool_calls", calls: [call] };
  return { type: "text", text: `echo: ${text}` };
}

/** The real API rejects tool_result blocks that do not answer a tool_use of the message just before. */
export function toolPairingError(body: AnthropicRequest): string | undefined {
  for (let i = 0; i < body.messages.length; i++) {
    const message = body.messages[i]!;
    if (typeof message.content === "string") continue;
    const results = message.content.filter((block) => block.type === "tool_result") as { tool_use_id: string }[];
    if (results.length === 0) continue;
    const previous = body.messages[i - 1];
    const blocks = previous?.role === "assistant" && Array.isArray(previous.content) ? previous.content : [];
    const uses = blocks.filter((block) => block.type === "tool_use").map((block) => (block as { id: string }).id);
    const orphan = results.find((result) => !uses.includes(result.tool_use_id));
    if (orphan) {
      return `messages.${i}.content: unexpected tool_use_id found in tool_result blocks: ${orphan.tool_use_id}`;
    }
  }
  return undefined;
}

let sequence = 0;

function event(name: string, data: Record<string, unknown>): string {
  return `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
}

function messagesResponse(body: AnthropicRequest, step: FakeStep, options: FakeServerOptions, recorded?: RecordedRequest): Response {
  if (step.type === "error") {
    const headers: Record<string, string> = {};
    if (step.retryAfter !== undefined) headers["retry-after"] = String(step.retryAfter);
    return anthropicError(step.status, step.errorType, step.message, headers);
  }
  if (step.type === "raw") return new Response(step.body, { status: step.status ?? 200, headers: step.headers });
  const n = ++sequence;
  const id = `msg_fake${n}`;
  const streaming = body.stream === true;
  if (step.type === "malformed" && !streaming) {
    const broken = step.line ?? '{"id": "msg_broken", "content": [';
    return new Response(broken, { headers: { "content-type": "application/json" } });
  }
  const { text, calls } = stepContent(step);
  const tools = calls.map((call, index) => ({
    type: "tool_use" as const,
    id: call.id ?? `toolu_fake${n}_${index}`,
    name: call.name,
    input: JSON.parse(call.arguments || "{}") as Record<string, unknown>,
  }));
  const system = typeof body.system === "string" ? body.system : JSON.stringify(body.system ?? "");
  const promptTokens = estimateTokens(JSON.stringify(body.messages) + system);
  // as Anthropic reports it: input_tokens are the tokens after the last cache breakpoint, cache reads and writes apart
  const cacheRead = Math.min(options.cachedTokens ?? 0, promptTokens);
  const cacheWrite = Math.min(options.cacheWriteTokens ?? 0, promptTokens - cacheRead);
  const inputTokens = promptTokens - cacheRead - cacheWrite;
  const cacheUsage = { cache_creation_input_tokens: cacheWrite, cache_read_input_tokens: cacheRead };
  const outputTokens = Math.max(1, estimateTokens(text + tools.map((tool) => JSON.stringify(tool.input)).join("")));
  const stopReason = tools.length > 0 ? "tool_use" : "end_turn";
  const head = { id, type: "message", role: "assistant", model: body.model, stop_sequence: null };
  const complete = step.type !== "stream_error" && step.type !== "malformed";
  if (recorded && complete) recorded.reported = { input: promptTokens, output: outputTokens, cached: cacheRead };
  if (!streaming) {
    const content = [...(text !== "" || tools.length === 0 ? [{ type: "text", text }] : []), ...tools];
    const usage = { input_tokens: inputTokens, ...cacheUsage, output_tokens: outputTokens };
    return Response.json({ ...head, content, stop_reason: stopReason, usage });
  }
  const startUsage = { input_tokens: inputTokens, ...cacheUsage, output_tokens: 1 };
  const events = [event("message_start", { message: { ...head, content: [], stop_reason: null, usage: startUsage } })];
  let index = 0;
  const before = step.type === "stream_error" ? (step.textBefore ?? "") : step.type === "malformed" ? "ok" : text;
  if (before !== "" || tools.length === 0) {
    events.push(event("content_block_start", { index, content_block: { type: "text", text: "" } }));
    events.push(event("ping", {}));
    for (const piece of pieces(before)) {
      events.push(event("content_block_delta", { index, delta: { type: "text_delta", text: piece } }));
    }
    if (step.type === "malformed") {
      const line = step.line ?? '{"type": "content_block_delta", "index": 0, "delta": {';
      events.push(`event: content_block_delta\ndata: ${line}\n\n`);
      return sseResponse(events, step, options);
    }
    if (step.type === "stream_error") {
      const error = { type: step.errorType ?? "overloaded_error", message: step.message ?? "Overloaded" };
      events.push(event("error", { error }));
      return sseResponse(events, step, options);
    }
    events.push(event("content_block_stop", { index }));
    index++;
  }
  for (const tool of tools) {
    events.push(event("content_block_start", { index, content_block: { ...tool, input: {} } }));
    const json = JSON.stringify(tool.input);
    const cut = Math.ceil(json.length / 2);
    for (const part of ["", json.slice(0, cut), json.slice(cut)]) {
      events.push(event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: part } }));
    }
    events.push(event("content_block_stop", { index }));
    index++;
  }
  const delta = { stop_reason: stopReason, stop_sequence: null };
  events.push(event("message_delta", { delta, usage: { output_tokens: outputTokens } }));
  events.push(event("message_stop", {}));
  return sseResponse(events, step, options);
}

export function startFakeAnthropic(options: FakeServerOptions = {}): FakeServer {
  const source = new StepSource();
  const stopped = new AbortController();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    idleTimeout: 0,
    async fetch(request) {
      const recorded = await recordRequest(request);
      source.requests.push(recorded);
      if (options.apiKey !== undefined && request.headers.get("x-api-key") !== options.apiKey) {
        return anthropicError(401);
      }
      if (!request.headers.get("anthropic-version")) {
        return anthropicError(400, "invalid_request_error", "anthropic-version: header is required");
      }
      if (request.method === "GET" && recorded.path === "/v1/models") {
        const ids = options.models ?? ["claude-fake"];
        const data = ids.map((id) => ({ type: "model", id, display_name: id, created_at: "2025-01-01T00:00:00Z" }));
        return Response.json({ data, has_more: false, first_id: ids[0] ?? null, last_id: ids.at(-1) ?? null });
      }
      if (request.method !== "POST" || recorded.path !== "/v1/messages") {
        return anthropicError(404, "not_found_error", `Not found: ${request.method} ${recorded.path}`);
      }
      const parsed = AnthropicRequestSchema.safeParse(recorded.body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        return anthropicError(400, "invalid_request_error", `${issue.path.join(".")}: ${issue.message}`);
      }
      const pairing = toolPairingError(parsed.data);
      if (pairing) return anthropicError(400, "invalid_request_error", pairing);
      const step = source.next(recorded) ?? defaultAnthropicReply(parsed.data);
      const delay = step.delayMs ?? answerDelayMs(options);
      if (delay > 0) await Bun.sleep(delay);
      if (step.type === "hang") return hangResponse(request, stopped.signal);
      return messagesResponse(parsed.data, step, options, recorded);
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    port: server.port!,
    ...source.api("/v1/messages"),
    async stop() {
      stopped.abort();
      await server.stop(true);
    },
  };
}

if (import.meta.main) runStandalone(startFakeAnthropic);
