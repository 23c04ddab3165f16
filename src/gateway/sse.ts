import { errorMessage } from "../core/errors.ts";
import { createLogger } from "../core/logger.ts";
import { SSE_KEEPALIVE_MS } from "./limits.ts";

const log = createLogger("gateway.sse");

export interface SseWriter {
  /** `event` null writes a bare `data:` line (the OpenAI wire format). */
  send(event: string | null, data: unknown): void;
  /** Raw data line, e.g. `[DONE]`. */
  raw(data: string): void;
  readonly closed: boolean;
}

const encoder = new TextEncoder();

/**
 * A text/event-stream response driven by `run`. The signal aborts when the client goes away; keep-alive
 * comments flow while the producer is silent; the stream closes when `run` settles.
 */
export function sseResponse(
  run: (writer: SseWriter, signal: AbortSignal) => Promise<void>,
  headers: Record<string, string> = {},
  keepaliveMs = SSE_KEEPALIVE_MS,
): Response {
  const abort = new AbortController();
  let closed = false;
  let timer: ReturnType<typeof setInterval> | undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (text: string) => {
        if (closed) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          closed = true;
        }
      };
      const writer: SseWriter = {
        send: (event, data) => write(`${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`),
        raw: (data) => write(`data: ${data}\n\n`),
        get closed() {
          return closed;
        },
      };
      timer = setInterval(() => write(": keep-alive\n\n"), keepaliveMs);
      run(writer, abort.signal)
        .catch((error) => log.error(`SSE producer failed: ${errorMessage(error)}`))
        .finally(() => {
          clearInterval(timer);
          if (closed) return;
          closed = true;
          controller.close();
        });
    },
    cancel() {
      closed = true;
      clearInterval(timer);
      abort.abort(new Error("client disconnected"));
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
      "x-accel-buffering": "no",
      ...headers,
    },
  });
}

/** Resolves after `ms`, or at once when `signal` aborts (leaving no listener behind). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done);
  });
}

export function wantsEventStream(request: Request): boolean {
  return (request.headers.get("accept") ?? "").toLowerCase().includes("text/event-stream");
}
