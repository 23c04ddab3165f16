/**
 * A fake OpenAI Chat Completions server on 127.0.0.1 speaking the real wire format (JSON and SSE).
 * Default behaviour is deterministic (see defaultReply); tests script answers with enqueue()/script().
 * Standalone: `bun test/fakes/openai-server.ts --port N [--latency-ms N] [--latency-jitter-ms N] [--chunk-delay-ms N]
 * [--api-key K]`
 * prints its URL on the first line of stdout.
 */
import { OpenAIChatRequestSchema, type OpenAIChatRequest } from "../../src/providers/openai-wire.ts";
import type { RecordedRequest } from "./common.ts";
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
} from "./common.ts";

export type { FakeServer, FakeServerOptions, FakeStep, RecordedRequest, ScriptedToolCall } from "./common.ts";

function lastText(body: OpenAIChatRequest): { role: string; text: string } {
  const last = body.messages.at(-1)!;
  const content = last.content;
  const text = typeof content === "string" ? content : (content ?? []).map((part) => part.text ?? "").join("");
  return { role: last.role, text };
}

/**
 * Default answer: "tool said: <content>" after a tool message, a tool call for "use tool <name> <json>" when that
 * tool is offered, else "echo: <text>".
 */
export function defaultReply(body: OpenAIChatRequest): FakeStep {
  const { role, text } = lastText(body);
  if (role === "tool") return { type: "text", text: `tool said: ${text}` };
  const offered = (body.tools ?? []).map((tool) => tool.function.name);
  const call = parseUseTool(text, offered);
  if (call) return { type: "tool_calls", calls: [call] };
  return { type: "text", text: `echo: ${text}` };
}

function openaiError(
  status: number,
  message: string,
  type: string,
  code: string | null,
  headers: Record<string, string> = {},
): Response {
  return Response.json({ error: { message, type, param: null, code } }, { status, headers });
}

export function errorStepResponse(step: Extract<FakeStep, { type: "error" }>): Response {
  const headers: Record<string, string> = {};
  if (step.retryAfter !== undefined) headers["retry-after"] = String(step.retryAfter);
  const defaults: Record<number, [string, string, string | null]> = {
    401: ["Incorrect API key provided.", "invalid_request_error", "invalid_api_key"],
    429: ["Rate limit reached for requests.", "requests", "rate_limit_exceeded"],
    500: ["The server had an error while processing your request.", "server_error", null],
  };
  const [message, type, code] = defaults[step.status] ?? [`fake error ${step.status}`, "invalid_request_error", null];
  return openaiError(step.status, step.message ?? message, step.errorType ?? type, code, headers);
}

/** The real API rejects a tool message that does not answer a tool call made earlier. */
export function toolPairingError(body: OpenAIChatRequest): string | undefined {
  const called = new Set<string>();
  for (const [i, message] of body.messages.entries()) {
    for (const call of message.tool_calls ?? []) called.add(call.id);
    if (message.role === "tool" && !called.has(message.tool_call_id ?? "")) {
      const rule = "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
      return `messages.[${i}].role: ${rule}`;
    }
  }
  return undefined;
}
let sequence = 0;

function chatResponse(body: OpenAIChatRequest, step: FakeStep, options: FakeServerOptions, recorded?: RecordedRequest): Response {
  if (step.type === "error") return errorStepResponse(step);
  if (step.type === "raw") return new Response(step.body, { status: step.status ?? 200, headers: step.headers });
  const n = ++sequence;
  const base = { id: `chatcmpl-fake${n}`, created: Math.floor(Date.now() / 1000), model: body.model };
  const streaming = body.stream === true;
  if (step.type === "malformed" && !streaming) {
    const broken = step.line ?? '{"id": "chatcmpl-broken", "choices": [';
    return new Response(broken, { headers: { "content-type": "application/json" } });
  }
  const content = stepContent(step);
  const text = content.text;
  const calls = content.calls.map((call, index) => ({
    id: call.id ?? `call_fake${n}_${index}`,
    type: "function" as const,
    function: { name: call.name, arguments: call.arguments },
  }));
  const finish = calls.length > 0 ? "tool_calls" : step.type === "text" ? (step.finishReason ?? "stop") : "stop";
  // as the real API, the prompt counts the tool definitions too
  const promptTokens = estimateTokens(JSON.stringify(body.messages) + (body.tools ? JSON.stringify(body.tools) : ""));
  const completionTokens = estimateTokens(text + calls.map((call) => call.function.arguments).join(""));
  const cached = Math.min(options.cachedTokens ?? 0, promptTokens);
  // as OpenAI reports it: cached tokens are part of prompt_tokens
  const usage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
  const streamedWithout = body.stream === true && body.stream_options?.include_usage !== true;
  if (recorded && !streamedWithout) recorded.reported = { input: promptTokens, output: completionTokens, cached };
  const initialContent = calls.length > 0 && text === "" ? null : text;
  if (!streaming) {
    const message: Record<string, unknown> = { role: "assistant", content: initialContent, refusal: null };
    if (calls.length > 0) message.tool_calls = calls;
    const choices = [{ index: 0, message, logprobs: null, finish_reason: finish }];
    return Response.json({ ...base, object: "chat.completion", system_fingerprint: "fp_fake", choices, usage });
  }
  const includeUsage = body.stream_options?.include_usage === true;
  const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
  const chunkOf = (choices: unknown[], extra: Record<string, unknown> = includeUsage ? { usage: null } : {}) =>
    data({ ...base, object: "chat.completion.chunk", system_fingerprint: "fp_fake", choices, ...extra });
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    chunkOf([{ index: 0, delta, logprobs: null, finish_reason: finishReason }]);

  const events = [chunk({ role: "assistant", content: initialContent === null ? null : "", refusal: null })];
  if (step.type === "malformed") {
    events.push(`data: ${step.line ?? '{"id": "chatcmpl-broken", "choices": [{'}\n\n`);
    return sseResponse(events, step, options);
  }
  const before = step.type === "stream_error" ? (step.textBefore ?? "") : text;
  for (const piece of pieces(before)) events.push(chunk({ content: piece }));
  if (step.type === "stream_error") {
    events.push(data({ error: { message: step.message ?? "upstream failed", code: 502 } }));
    return sseResponse(events, step, options);
  }
  calls.forEach((call, index) => {
    const start = { index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } };
    events.push(chunk({ tool_calls: [start] }));
    const args = call.function.arguments;
    const cut = Math.ceil(args.length / 2);
    for (const part of [args.slice(0, cut), args.slice(cut)]) {
      if (part) events.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
    }
  });
  events.push(chunk({}, finish));
  if (includeUsage) events.push(chunkOf([], { usage }));
  events.push("data: [DONE]\n\n");
  return sseResponse(events, step, options);
}

/** Length of the fake's embedding vectors. */
export const FAKE_EMBEDDING_DIMENSIONS = 768;

/**
 * Words the fake embeds as one meaning (a concept), so related wordings land close together as a real model's do:
 * each word maps to its concept's id, the stem of a word of the recall corpus (test/fixtures/recall).
 */
const FAKE_SYNONYMS: Record<string, string> = {
  automobile: "car",
  vehicle: "car",
  motor: "car",
  physician: "doctor",
  gp: "doctor",
  medic: "doctor",
  spouse: "wife",
  partner: "wife",
  husband: "wife",
  puppy: "dog",
  hound: "dog",
  kitten: "cat",
  feline: "cat",
  holiday: "vacation",
  trip: "vacation",
  boss: "manager",
  supervisor: "manager",
  garbage: "bin",
  trash: "bin",
  rubbish: "bin",
  movie: "film",
  movi: "film",
  lawyer: "solicitor",
  attorney: "solicitor",
  solicitor: "solicitor",
  earn: "salary",
  income: "salary",
  wage: "salary",
  bicycle: "bike",
  spectacles: "glass",
  spectacl: "glass",
  grandmother: "grandma",
  granny: "grandma",
  jog: "run",
  jogging: "run",
  running: "run",
  airline: "flight",
  fly: "flight",
  flying: "flight",
  plane: "flight",
  hair: "haircut",
  barber: "haircut",
  hairdresser: "haircut",
  mobile: "phone",
  telephone: "phone",
  counsellor: "therapist",
  counselor: "therapist",
  therapy: "therapist",
  coworker: "team",
  colleague: "team",
  internet: "broadband",
  electricity: "energy",
  boy: "son",
  cleaning: "cleaner",
  clean: "cleaner",
  housekeeper: "cleaner",
  knot: "married",
  marri: "married",
  wed: "married",
  wedding: "married",
};

/** Concept ids: a word of a concept weighs this much in the vector, a word of no concept 1. */
const FAKE_CONCEPTS = new Set(Object.values(FAKE_SYNONYMS));
const FAKE_CONCEPT_WEIGHT = 2;

/** Function words the fake leaves out of a text's meaning. */
const FAKE_STOP_WORDS = new Set(
  "the a an and or of to in on at for is are was be my me i you your it its this that what when where who how do does did can with from by as".split(" "),
);

function fakeStem(word: string): string {
  const stemmed = word.length > 4 ? word.replace(/(ing|ed|es|s)$/, "") : word;
  return FAKE_SYNONYMS[stemmed] ?? FAKE_SYNONYMS[word] ?? stemmed;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/**
 * A deterministic unit vector for a text: a hashed bag of its content words (stemmed, synonyms folded into concepts
 * that weigh more than other words), so
 * texts sharing meaning words are close by cosine and unrelated ones are near-orthogonal. A text without content
 * words embeds as the first unit vector. The first component is never exactly 0 (1e-6 then).
 */
export function fakeEmbedding(text: string): number[] {
  const vector = new Array<number>(FAKE_EMBEDDING_DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    if (FAKE_STOP_WORDS.has(word)) continue;
    const meaning = fakeStem(word);
    const hash = fnv1a(meaning);
    const weight = FAKE_CONCEPTS.has(meaning) ? FAKE_CONCEPT_WEIGHT : 1;
    vector[hash % FAKE_EMBEDDING_DIMENSIONS]! += hash & 0x100 ? weight : -weight;
  }
  const norm = Math.hypot(...vector);
  if (norm === 0) vector[0] = 1;
  const unit = vector.map((v) => (norm === 0 ? v : Math.round((v / norm) * 1e6) / 1e6));
  // elizaOS's plugin-knowledge refuses a vector whose first component is 0 as a "zero vector" (a real model's never
  // is); 1e-6 moves no cosine the tests compare. The others stay 0: a batch of 2048 vectors keeps a size real ones have.
  unit[0] ||= 1e-6;
  return unit;
}

/** POST /v1/embeddings as api.openai.com answers it (https://platform.openai.com/docs/api-reference/embeddings). */
function embeddingsResponse(body: unknown): Response {
  const request = body as { model?: unknown; input?: unknown; dimensions?: unknown; encoding_format?: unknown } | null;
  const input = typeof request?.input === "string" ? [request.input] : request?.input;
  if (typeof request?.model !== "string" || !Array.isArray(input) || input.length === 0) {
    return openaiError(400, "'input' and 'model' are required.", "invalid_request_error", null);
  }
  if (!input.every((text) => typeof text === "string" && text.length > 0)) {
    return openaiError(400, "'$.input' is invalid.", "invalid_request_error", null);
  }
  const dimensions = request.dimensions;
  if (dimensions !== undefined) {
    // Only the text-embedding-3 models (and later) take `dimensions`; each has a largest length of its own.
    if (!request.model.startsWith("text-embedding-3")) {
      return openaiError(400, "This model does not support specifying dimensions.", "invalid_request_error", null);
    }
    if (typeof dimensions !== "number" || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > FAKE_EMBEDDING_DIMENSIONS) {
      return openaiError(400, `Invalid value for 'dimensions' = ${String(dimensions)}.`, "invalid_request_error", "dimensions");
    }
  }
  const shorten = (vector: number[]) => {
    if (dimensions === undefined) return vector;
    const cut = vector.slice(0, dimensions as number);
    const norm = Math.hypot(...cut) || 1;
    return cut.map((v) => v / norm);
  };
  const encode = (vector: number[]) => {
    if (request.encoding_format !== "base64") return vector;
    const floats = new Float32Array(vector);
    return Buffer.from(floats.buffer).toString("base64");
  };
  const tokens = (input as string[]).reduce((sum, text) => sum + estimateTokens(text), 0);
  return Response.json({
    object: "list",
    data: (input as string[]).map((text, index) => ({ object: "embedding", index, embedding: encode(shorten(fakeEmbedding(text))) })),
    model: request.model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}

/**
 * POST /v1/audio/transcriptions as api.openai.com answers it (https://platform.openai.com/docs/api-reference/audio):
 * multipart/form-data with `file` and `model` required; the default response_format "json" is `{"text": ...}`. The
 * fake's transcript names what it heard: "fake transcript of <bytes> bytes of <file name>".
 */
async function transcriptionResponse(request: Request, requests: RecordedRequest[]): Promise<Response> {
  let form: Awaited<ReturnType<Request["formData"]>>;
  try {
    form = await request.formData();
  } catch {
    return openaiError(400, "Could not parse multipart form", "invalid_request_error", null);
  }
  const file = form.get("file");
  const model = form.get("model");
  const headers = Object.fromEntries(request.headers);
  const body = {
    model,
    response_format: form.get("response_format"),
    file: file instanceof Blob ? { name: (file as File).name, type: file.type, bytes: file.size } : null,
  };
  requests.push({ method: "POST", path: "/v1/audio/transcriptions", headers, body });
  if (!(file instanceof Blob)) return openaiError(400, "you must provide a file", "invalid_request_error", null);
  if (typeof model !== "string" || model === "") return openaiError(400, "you must provide a model parameter", "invalid_request_error", null);
  return Response.json({ text: `fake transcript of ${file.size} bytes of ${(file as File).name}` });
}

/** The fake server, plus a switch making POST /v1/embeddings fail as the real API does when it is down. */
export interface FakeOpenAIServer extends FakeServer {
  /** Answer embeddings with this HTTP status (500: server_error, 429: rate limit, ...) until called with null. */
  failEmbeddings(status: number | null): void;
}

export function startFakeOpenAI(options: FakeServerOptions = {}): FakeOpenAIServer {
  const source = new StepSource();
  let embeddingsFailure: number | null = null;
  const stopped = new AbortController();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    idleTimeout: 0,
    async fetch(request) {
      const received = performance.now();
      if (request.method === "POST" && new URL(request.url).pathname === "/v1/audio/transcriptions") {
        return transcriptionResponse(request, source.requests);
      }
      const recorded = await recordRequest(request);
      source.requests.push(recorded);
      const authorized = request.headers.get("authorization") === `Bearer ${options.apiKey}`;
      if (options.apiKey !== undefined && !authorized) {
        return openaiError(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key");
      }
      if (request.method === "GET" && recorded.path === "/v1/models") {
        const ids = options.models ?? ["fake-model"];
        const data = ids.map((id) => ({ id, object: "model", created: 0, owned_by: "fake" }));
        return Response.json({ object: "list", data });
      }
      if (request.method === "POST" && recorded.path === "/v1/embeddings") {
        if (embeddingsFailure !== null) return errorStepResponse({ type: "error", status: embeddingsFailure });
        return embeddingsResponse(recorded.body);
      }
      if (request.method !== "POST" || recorded.path !== "/v1/chat/completions") {
        const message = `Unknown request URL: ${request.method} ${recorded.path}.`;
        return openaiError(404, message, "invalid_request_error", "unknown_url");
      }
      const parsed = OpenAIChatRequestSchema.safeParse(recorded.body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const message = `Invalid request: ${issue.path.join(".")}: ${issue.message}`;
        return openaiError(400, message, "invalid_request_error", null);
      }
      const pairing = toolPairingError(parsed.data);
      if (pairing) return openaiError(400, pairing, "invalid_request_error", null);
      const step = source.next(recorded) ?? defaultReply(parsed.data);
      const delay = step.delayMs ?? answerDelayMs(options);
      if (delay > 0) await Bun.sleep(delay);
      if (step.type === "hang") return hangResponse(request, stopped.signal);
      const response = chatResponse(parsed.data, step, options, recorded);
      recorded.handledMs = performance.now() - received;
      return response;
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    port: server.port!,
    ...source.api("/v1/chat/completions"),
    failEmbeddings(status) {
      embeddingsFailure = status;
    },
    async stop() {
      stopped.abort();
      await server.stop(true);
    },
  };
}

if (import.meta.main) runStandalone(startFakeOpenAI);
