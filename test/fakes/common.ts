/** What both fake provider servers share: step scripting, request recording, SSE writing, standalone start-up. */

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Parsed JSON body, or the raw text when it was not JSON, or null when empty. */
  body: any;
  /** Chat requests: milliseconds from receipt to the response head (the fake's own latency for this request). */
  handledMs?: number;
  /** Chat requests answered with usage: the tokens reported, as prx should count them (input includes cached). */
  reported?: ReportedUsage;
}

export interface ReportedUsage {
  input: number;
  output: number;
  cached: number;
}

export interface ScriptedToolCall {
  name: string;
  arguments: string | Record<string, unknown>;
  id?: string;
}

/**
 * One scripted answer. `delayMs` waits before answering; `byteChunkSize` streams the SSE bytes in pieces that
 * may split UTF-8 characters; `chunkDelayMs` waits between streamed pieces.
 */
export type FakeStep = { delayMs?: number; byteChunkSize?: number; chunkDelayMs?: number } & (
  | { type: "text"; text: string; finishReason?: string }
  | { type: "tool_calls"; calls: ScriptedToolCall[]; text?: string }
  | { type: "error"; status: number; message?: string; retryAfter?: string | number; errorType?: string }
  /** Streamed: a valid first chunk then a broken data line. Not streamed: a body that is not JSON. */
  | { type: "malformed"; line?: string }
  /** An answer whose content is `bytes` long (to hit response size caps). */
  | { type: "huge"; bytes: number }
  /** An error reported inside a 200 stream (OpenRouter style / Anthropic `error` event). */
  | { type: "stream_error"; message?: string; errorType?: string; textBefore?: string }
  | { type: "raw"; status?: number; headers?: Record<string, string>; body: string }
  /** Never answers; the connection stays open until the client gives up or the server stops. */
  | { type: "hang" }
);

export interface FakeServerOptions {
  port?: number;
  /** Default delay before every chat answer (benchmarks). */
  latencyMs?: number;
  /**
   * Spread of that delay: each answer waits latencyMs plus a uniform offset in [-j/2, +j/2]. Fixed delays make
   * concurrent answers fall due in the same timer tick (Bun's timers have 1 ms granularity), a burst that
   * independent clients of a real provider do not cause.
   */
  latencyJitterMs?: number;
  /** Default delay between streamed pieces. */
  chunkDelayMs?: number;
  /** Prompt tokens reported as read from the provider's prompt cache (at most the prompt's). */
  cachedTokens?: number;
  /** Anthropic: prompt tokens reported as written to the cache (cache_creation_input_tokens). */
  cacheWriteTokens?: number;
  /** When set, requests must carry this key (Bearer for OpenAI, x-api-key for Anthropic). */
  apiKey?: string;
  models?: string[];
}

export interface FakeServer {
  /** For OpenAI: ends with /v1. For Anthropic: the root (the provider appends /v1/messages). */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Queue answers, consumed one per chat request, before script() and the default behaviour. */
  enqueue(...steps: FakeStep[]): void;
  /** Decide answers dynamically; return undefined for the default behaviour. */
  script(handler: ScriptHandler | undefined): void;
  /** Chat requests only (the bodies of POSTs to the chat endpoint). */
  chatRequests(): RecordedRequest[];
  reset(): void;
  stop(): Promise<void>;
}

const encoder = new TextEncoder();

export async function recordRequest(request: Request): Promise<RecordedRequest> {
  const text = await request.text();
  let body: unknown = null;
  if (text !== "") {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return {
    method: request.method,
    path: new URL(request.url).pathname,
    headers: Object.fromEntries(request.headers.entries()),
    body,
  };
}

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Word-aligned pieces that concatenate back to the text. */
export function pieces(text: string, max = 64 * 1024): string[] {
  if (text === "") return [];
  if (text.length > max) {
    const out: string[] = [];
    for (let i = 0; i < text.length; i += max) out.push(text.slice(i, i + max));
    return out;
  }
  return text.split(/(?<=\s)/);
}

export function argumentsText(args: ScriptedToolCall["arguments"]): string {
  return typeof args === "string" ? args : JSON.stringify(args);
}

/** "use tool <name> <json>" -> a tool call, when tools were offered. */
export function parseUseTool(text: string, offered: string[]): ScriptedToolCall | undefined {
  const match = /^use tool (\S+)\s*([\s\S]*)$/.exec(text.trim());
  if (!match || !offered.includes(match[1]!)) return undefined;
  return { name: match[1]!, arguments: match[2]!.trim() === "" ? "{}" : match[2]!.trim() };
}

/** An SSE response streaming the given events, optionally re-cut into byteChunkSize pieces with delays between. */
export function sseResponse(events: string[], step: FakeStep | undefined, defaults: FakeServerOptions): Response {
  const chunkDelay = step?.chunkDelayMs ?? defaults.chunkDelayMs ?? 0;
  let parts: Uint8Array[] = events.map((event) => encoder.encode(event));
  if (step?.byteChunkSize) {
    const all = encoder.encode(events.join(""));
    parts = [];
    for (let i = 0; i < all.length; i += step.byteChunkSize) parts.push(all.subarray(i, i + step.byteChunkSize));
  }
  let index = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index >= parts.length) return controller.close();
      if (index > 0 && chunkDelay > 0) await Bun.sleep(chunkDelay);
      controller.enqueue(parts[index++]!);
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
    },
  });
}

export function hangResponse(request: Request, stopped: AbortSignal): Promise<Response> {
  return new Promise((resolve) => {
    const done = () => resolve(new Response(null, { status: 499 }));
    request.signal.addEventListener("abort", done, { once: true });
    stopped.addEventListener("abort", done, { once: true });
  });
}

/** The bookkeeping both fakes share: recording, the queue, the script hook. */
export type ScriptHandler = (request: RecordedRequest) => FakeStep | undefined;

export class StepSource {
  requests: RecordedRequest[] = [];
  private queue: FakeStep[] = [];
  private handler: ScriptHandler | undefined;

  next(request: RecordedRequest): FakeStep | undefined {
    return this.queue.shift() ?? this.handler?.(request);
  }

  api(chatPath: string) {
    return {
      requests: this.requests,
      enqueue: (...steps: FakeStep[]) => void this.queue.push(...steps),
      script: (handler: ScriptHandler | undefined) => void (this.handler = handler),
      chatRequests: () => this.requests.filter((request) => request.path === chatPath && request.method === "POST"),
      reset: () => {
        this.queue = [];
        this.handler = undefined;
        this.requests.length = 0;
      },
    };
  }
}

export interface StepContent {
  text: string;
  calls: { id?: string; name: string; arguments: string }[];
}

/** The text and tool calls a step answers with (shared by both fakes). */
export function stepContent(step: FakeStep): StepContent {
  switch (step.type) {
    case "text":
      return { text: step.text, calls: [] };
    case "huge":
      return { text: "x".repeat(step.bytes), calls: [] };
    case "tool_calls": {
      const calls = step.calls.map((call) => ({ ...call, arguments: argumentsText(call.arguments) }));
      return { text: step.text ?? "", calls };
    }
    default:
      return { text: "", calls: [] };
  }
}

/** Parse `--port N --latency-ms N --latency-jitter-ms N --chunk-delay-ms N --api-key K` for the standalone fakes. */
export function parseFakeArgs(argv: string[]): FakeServerOptions {
  const options: FakeServerOptions = {};
  for (let i = 0; i < argv.length; i += 2) {
    const value = argv[i + 1];
    if (value === undefined) throw new Error(`missing value after ${argv[i]}`);
    if (argv[i] === "--port") options.port = Number(value);
    else if (argv[i] === "--latency-ms") options.latencyMs = Number(value);
    else if (argv[i] === "--latency-jitter-ms") options.latencyJitterMs = Number(value);
    else if (argv[i] === "--chunk-delay-ms") options.chunkDelayMs = Number(value);
    else if (argv[i] === "--api-key") options.apiKey = value;
    else throw new Error(`unknown option ${argv[i]}`);
  }
  return options;
}

/** The default delay before one answer: latencyMs, spread by latencyJitterMs (never negative). */
export function answerDelayMs(options: FakeServerOptions): number {
  const jitter = options.latencyJitterMs ?? 0;
  return Math.max(0, (options.latencyMs ?? 0) + (jitter > 0 ? (Math.random() - 0.5) * jitter : 0));
}

/**
 * The fake's own time per chat request, by the text of its last message, for the requests recorded so far
 * (requests whose last message has no plain text, or that were not answered yet, are left out).
 */
export function handledByLastText(fake: Pick<FakeServer, "chatRequests">): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  for (const request of fake.chatRequests()) {
    const content = (request.body as { messages?: Array<{ content?: unknown }> } | null)?.messages?.at(-1)?.content;
    if (typeof content === "string" && request.handledMs !== undefined) out.push([content, request.handledMs]);
  }
  return out;
}

/** The standalone fake's control commands on stdin (one per line; the HTTP side stays the provider's API). */
export const STANDALONE_HANDLED_COMMAND = "handled";
export const STANDALONE_LAST_BODY_COMMAND = "last-body";

/**
 * A fake in its own process: prints its URL as the first line of stdout, serves until SIGTERM/SIGINT. Commands on
 * stdin are answered with one JSON line each on stdout: STANDALONE_HANDLED_COMMAND gives handledByLastText() of the
 * requests recorded since the previous one, which are then forgotten (so a long benchmark does not pile them up);
 * STANDALONE_LAST_BODY_COMMAND gives the body of the last chat request ever received (null before any).
 */
export function runStandalone(start: (options: FakeServerOptions) => FakeServer): void {
  const fake = start(parseFakeArgs(process.argv.slice(2)));
  console.log(fake.url);
  const shutdown = () => void fake.stop().then(() => process.exit(0));
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
  let lastBody: unknown = null;
  void (async () => {
    for await (const line of console) {
      const command = line.trim();
      if (command === STANDALONE_HANDLED_COMMAND) {
        const handled = handledByLastText(fake);
        lastBody = fake.chatRequests().at(-1)?.body ?? lastBody;
        fake.reset();
        console.log(JSON.stringify(handled));
      } else if (command === STANDALONE_LAST_BODY_COMMAND) {
        console.log(JSON.stringify(fake.chatRequests().at(-1)?.body ?? lastBody));
      } else if (command !== "") {
        const known = `"${STANDALONE_HANDLED_COMMAND}" or "${STANDALONE_LAST_BODY_COMMAND}"`;
        console.error(`fake: unknown command "${command}" on stdin (expected ${known})`);
      }
    }
  })();
}
