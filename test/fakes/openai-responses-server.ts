/**
 * A fake upstream speaking the OpenAI Responses API on 127.0.0.1 (POST /v1/responses, JSON and typed SSE events;
 * GET /v1/models), answering as OpenAI's API reference documents: the response object with output items (message
 * with output_text parts, function_call, reasoning), usage with its details, and streamed events with `event:` lines
 * and increasing sequence_number. Default answer: "tool said: <output>" after a function_call_output, a
 * function_call for "use tool <name> <json>" when that tool is offered, else "echo: <text>". A model whose name
 * contains "reason" first writes a reasoning item, with encrypted_content when the request includes
 * "reasoning.encrypted_content". Tests script answers with enqueue()/script() as with the chat completions fake.
 * Standalone: `bun test/fakes/openai-responses-server.ts --port N` prints its URL on the first line of stdout.
 */
import {
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
} from "./common.ts";

export type { FakeServer, FakeStep } from "./common.ts";

interface Body {
  model?: string;
  input?: unknown;
  tools?: Array<{ type: string; name?: string }>;
  stream?: boolean;
  store?: boolean;
  include?: string[];
  instructions?: string;
}
type Item = Record<string, any>;

function error(status: number, message: string, type: string, param: string | null, code: string | null): Response {
  return Response.json({ error: { message, type, param, code } }, { status });
}

function inputItems(body: Body): Item[] {
  return typeof body.input === "string" ? [{ role: "user", content: body.input }] : ((body.input ?? []) as Item[]);
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return ((content ?? []) as Item[]).map((part) => (typeof part.text === "string" ? part.text : "")).join("");
}

/** What the real API refuses before answering: a function_call_output with no function_call of its call_id before it. */
function checkInput(body: Body): Response | null {
  if (typeof body.model !== "string") return error(400, "Missing required parameter: 'model'.", "invalid_request_error", "model", "missing_required_parameter");
  const items = inputItems(body);
  const calls = new Set<string>();
  for (const [index, item] of items.entries()) {
    if (item.type === "function_call") calls.add(item.call_id);
    if (item.type === "function_call_output" && !calls.has(item.call_id)) {
      return error(400, `No tool call found for function call output with call_id ${item.call_id}.`, "invalid_request_error", `input[${index}]`, null);
    }
    if (item.type === "item_reference" && body.store === false) {
      return error(400, `Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false.`, "invalid_request_error", `input[${index}]`, null);
    }
  }
  return null;
}

export function defaultResponsesReply(body: Body): FakeStep {
  const last = inputItems(body).at(-1);
  if (last?.type === "function_call_output") return { type: "text", text: `tool said: ${textOf(last.output)}` };
  const text = textOf(last?.content);
  const offered = (body.tools ?? []).filter((tool) => tool.type === "function").map((tool) => tool.name!);
  const call = parseUseTool(text, offered);
  if (call) return { type: "tool_calls", calls: [call] };
  return { type: "text", text: `echo: ${text}` };
}

let counter = 0;
const nextId = (prefix: string) => `${prefix}_${(++counter).toString(16).padStart(8, "0")}`;

function responseObject(body: Body, status: string, output: Item[], usage: Item | null): Item {
  return {
    id: "",
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: null,
    model: body.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: body.store ?? true,
    temperature: 1,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: body.tools ?? [],
    top_p: 1,
    truncation: "disabled",
    usage,
    user: null,
    metadata: {},
  };
}

/** The output items of a step: reasoning (reasoning models), a message when there is text, then function calls. */
function outputOf(body: Body, step: FakeStep): Item[] {
  const { text, calls } = stepContent(step);
  const output: Item[] = [];
  if ((body.model ?? "").includes("reason")) {
    const encrypted = body.include?.includes("reasoning.encrypted_content") ? `enc-${nextId("r")}` : null;
    output.push({ id: nextId("rs"), type: "reasoning", summary: [], ...(encrypted ? { encrypted_content: encrypted } : {}) });
  }
  if (text !== "" || calls.length === 0) {
    output.push({
      id: nextId("msg"),
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text, annotations: [], logprobs: [] }],
    });
  }
  for (const call of calls) {
    output.push({ id: nextId("fc"), type: "function_call", status: "completed", call_id: call.id ?? nextId("call"), name: call.name, arguments: call.arguments });
  }
  return output;
}

function usageOf(body: Body, output: Item[]): Item {
  const input = estimateTokens(JSON.stringify(body.input ?? ""));
  const written = estimateTokens(JSON.stringify(output));
  const reasoning = output.some((item) => item.type === "reasoning") ? 8 : 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: written + reasoning,
    output_tokens_details: { reasoning_tokens: reasoning },
    total_tokens: input + written + reasoning,
  };
}

/** The documented event sequence for a response whose output is `output`. */
function streamEvents(body: Body, id: string, output: Item[], usage: Item, failAfterText?: string): string[] {
  let sequence = 0;
  const events: string[] = [];
  const send = (type: string, data: Item) => events.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data, sequence_number: sequence++ })}\n\n`);
  const base = { ...responseObject(body, "in_progress", [], null), id };
  send("response.created", { response: base });
  send("response.in_progress", { response: base });
  output.forEach((item, index) => {
    if (item.type === "message") {
      const text: string = item.content[0].text;
      send("response.output_item.added", { output_index: index, item: { ...item, status: "in_progress", content: [] } });
      const where = { item_id: item.id, output_index: index, content_index: 0 };
      send("response.content_part.added", { ...where, part: { type: "output_text", text: "", annotations: [], logprobs: [] } });
      for (const piece of pieces(failAfterText ?? text)) send("response.output_text.delta", { ...where, delta: piece, logprobs: [] });
      if (failAfterText !== undefined) return;
      send("response.output_text.done", { ...where, text, logprobs: [] });
      send("response.content_part.done", { ...where, part: item.content[0] });
      send("response.output_item.done", { output_index: index, item });
    } else if (item.type === "function_call") {
      send("response.output_item.added", { output_index: index, item: { ...item, status: "in_progress", arguments: "" } });
      for (const piece of pieces(item.arguments, 8)) send("response.function_call_arguments.delta", { item_id: item.id, output_index: index, delta: piece });
      send("response.function_call_arguments.done", { item_id: item.id, output_index: index, name: item.name, arguments: item.arguments });
      send("response.output_item.done", { output_index: index, item });
    } else {
      send("response.output_item.added", { output_index: index, item });
      send("response.output_item.done", { output_index: index, item });
    }
  });
  if (failAfterText !== undefined) {
    send("error", { code: "server_error", message: "The server had an error while processing your request.", param: null });
    send("response.failed", { response: { ...base, status: "failed", error: { code: "server_error", message: "The server had an error while processing your request." } } });
  } else {
    send("response.completed", { response: { ...responseObject(body, "completed", output, usage), id } });
  }
  return events;
}

export function startFakeOpenAIResponses(options: FakeServerOptions = {}): FakeServer {
  const source = new StepSource();
  const stopped = new AbortController();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    idleTimeout: 0,
    async fetch(request) {
      const recorded = await recordRequest(request);
      source.requests.push(recorded);
      if (options.apiKey !== undefined && request.headers.get("authorization") !== `Bearer ${options.apiKey}`) {
        return error(401, "Incorrect API key provided.", "invalid_request_error", null, "invalid_api_key");
      }
      if (request.method === "GET" && recorded.path === "/v1/models") {
        const data = (options.models ?? ["fake-model"]).map((id) => ({ id, object: "model", created: 0, owned_by: "fake" }));
        return Response.json({ object: "list", data });
      }
      if (request.method !== "POST" || recorded.path !== "/v1/responses") {
        return error(404, `Unknown request URL: ${request.method} ${recorded.path}.`, "invalid_request_error", null, "unknown_url");
      }
      const body = recorded.body as Body;
      const refused = checkInput(body);
      if (refused) return refused;
      const step = source.next(recorded) ?? defaultResponsesReply(body);
      if (step.delayMs) await Bun.sleep(step.delayMs);
      if (step.type === "hang") return hangResponse(request, stopped.signal);
      if (step.type === "error") {
        const type = step.errorType ?? (step.status === 429 ? "rate_limit_exceeded" : step.status >= 500 ? "server_error" : "invalid_request_error");
        const headers: Record<string, string> = step.retryAfter === undefined ? {} : { "retry-after": String(step.retryAfter) };
        return Response.json({ error: { message: step.message ?? `fake error ${step.status}`, type, param: null, code: null } }, { status: step.status, headers });
      }
      if (step.type === "raw") return new Response(step.body, { status: step.status ?? 200, headers: step.headers ?? {} });
      const id = nextId("resp");
      const output = outputOf(body, step);
      const usage = usageOf(body, output);
      if (body.stream) {
        const failAfter = step.type === "stream_error" ? (step.textBefore ?? "") : undefined;
        const failing = failAfter !== undefined ? [{ id: nextId("msg"), type: "message", status: "in_progress", role: "assistant", content: [{ type: "output_text", text: failAfter }] }] : output;
        return sseResponse(streamEvents(body, id, failing, usage, failAfter), step, options);
      }
      return Response.json({ ...responseObject(body, "completed", output, usage), id });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    port: server.port!,
    ...source.api("/v1/responses"),
    async stop() {
      stopped.abort();
      await server.stop(true);
    },
  };
}

if (import.meta.main) runStandalone(startFakeOpenAIResponses);

/**
 * One base URL in front of both fakes, as OpenAI's API is: `/v1/responses` to the Responses fake at `responsesUrl`,
 * everything else to the Chat Completions fake at `chatUrl` (both ending in /v1). Stop it with `stop(true)`.
 */
export function serveOneOpenAIBaseUrl(chatUrl: string, responsesUrl: string): ReturnType<typeof Bun.serve> {
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const { pathname, search } = new URL(request.url);
      const upstream = pathname.startsWith("/v1/responses") ? responsesUrl : chatUrl;
      return fetch(`${upstream.slice(0, -"/v1".length)}${pathname}${search}`, {
        method: request.method,
        headers: request.headers,
        body: request.method === "GET" ? undefined : request.body,
      });
    },
  });
}
