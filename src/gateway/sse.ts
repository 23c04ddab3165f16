import { errorMessage } from "../core/errors.ts";
import { createLogger } from "../core/logger.ts";
import { REAL_TIMERS, sleepOn, type Timers } from "../core/timers.ts";
import { SSE_HEADERS_WAIT_MS, SSE_KEEPALIVE_MS } from "./limits.ts";

const log = createLogger("gateway.sse");

export interface SseWriter {
  /** `event` null writes a bare `data:` line (the OpenAI wire format). */
  send(event: string | null, data: unknown): void;
  /** An event whose data is JSON text already (a template filled in); `event` as in `send`. */
  sendJson(event: string | null, json: string): void;
  /** Raw data line, e.g. `[DONE]`. */
  raw(data: string): void;
  readonly closed: boolean;
  /** Resolves after `ms` on the response's timers, or at once when the stream is aborted (leaving no listener behind). */
  pause(ms: number): Promise<void>;
}

export interface SseOptions {
  /** Headers beside the event-stream ones. */
  headers?: Record<string, string>;
  /** The request's signal: a client that goes away before the response starts aborts the producer too. */
  signal?: AbortSignal;
  keepaliveMs?: number;
  /** How long the response's headers wait for the producer's first event (they then go out alone). */
  headersWaitMs?: number;
  /**
   * Where the response's timers are scheduled, the headers' wait (once), the keep-alive comments (every interval)
   * and the producer's pauses (writer.pause); default REAL_TIMERS (tests fire them on demand).
   */
  timers?: Pick<Timers, "after" | "every">;
}

const KEEPALIVE_COMMENT = ": keep-alive\n\n";

const EVENT_STREAM_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

/**
 * A text/event-stream response driven by `run`. The signal aborts when the client goes away; keep-alive
 * comments flow while the producer is silent; the stream closes when `run` settles.
 *
 * What the producer writes within one turn of the event loop leaves in one write (flushed by setImmediate), and the
 * response resolves with the first such write: its headers and first events share a packet, and a producer that
 * finishes within that turn sends its whole answer in one, as a JSON answer does. When the producer is silent for
 * `headersWaitMs`, the headers go out with a keep-alive comment. The body is a direct stream (Bun's
 * `type: "direct"`): text is written straight into the response, with no encoding, queued chunk or promise per
 * event; it sends its headers with its first bytes.
 */
export function sseResponse(
  run: (writer: SseWriter, signal: AbortSignal) => Promise<void>,
  options: SseOptions = {},
): Promise<Response> {
  const abort = new AbortController();
  const timers = options.timers ?? REAL_TIMERS;
  const headers = options.headers ? { ...EVENT_STREAM_HEADERS, ...options.headers } : EVENT_STREAM_HEADERS;
  let pending = "";
  let sink: ReadableStreamDirectController | undefined;
  let finished = false;
  let closed = false;
  let deliveryQueued = false;
  let released = false;
  let endBody: (() => void) | undefined;
  let resolveResponse!: (response: Response) => void;
  const response = new Promise<Response>((resolve) => (resolveResponse = resolve));

  const gone = () => {
    closed = true;
    abort.abort(new Error("client disconnected"));
  };
  const source: Bun.DirectUnderlyingSource<Uint8Array> = {
    type: "direct",
    pull(controller: ReadableStreamDirectController) {
      if (closed) return controller.close();
      sink = controller;
      if (!handOver()) return;
      if (finished) return controller.close();
      try {
        controller.flush();
      } catch {
        // the client went away mid-write: stop the producer too
        gone();
        return;
      }
      return new Promise<void>((resolve) => (endBody = resolve));
    },
    cancel: gone,
  };
  const body = new ReadableStream<Uint8Array>(source);

  const release = () => {
    if (released) return;
    released = true;
    cancelHeadersWait();
    resolveResponse(new Response(body, { headers }));
  };
  /** Writes what is pending into the response; false when the client is gone. */
  const handOver = (): boolean => {
    if (pending === "") return true;
    try {
      sink!.write(pending);
    } catch {
      gone();
      return false;
    }
    pending = "";
    return true;
  };
  const deliver = () => {
    deliveryQueued = false;
    if (closed || finished) return;
    if (!released) return release();
    if (sink && handOver()) {
      try {
        sink.flush();
      } catch {
        gone();
      }
    }
  };
  const write = (text: string) => {
    if (closed) return;
    pending += text;
    if (deliveryQueued) return;
    deliveryQueued = true;
    setImmediate(deliver);
  };
  const event = (name: string | null, json: string) => write(name ? `event: ${name}\ndata: ${json}\n\n` : `data: ${json}\n\n`);
  const writer: SseWriter = {
    send: (name, data) => event(name, JSON.stringify(data)),
    sendJson: event,
    raw: (data) => write(`data: ${data}\n\n`),
    get closed() {
      return closed;
    },
    pause: (ms) => sleepOn(timers, ms, abort.signal),
  };

  const keepAlive = () => write(KEEPALIVE_COMMENT);
  const cancelHeadersWait = timers.after(keepAlive, options.headersWaitMs ?? SSE_HEADERS_WAIT_MS);
  const cancelKeepalive = timers.every(keepAlive, options.keepaliveMs ?? SSE_KEEPALIVE_MS);
  options.signal?.addEventListener("abort", gone, { once: true });
  run(writer, abort.signal)
    .catch((error) => log.error(`SSE producer failed: ${errorMessage(error)}`))
    .finally(() => {
      cancelKeepalive();
      options.signal?.removeEventListener("abort", gone);
      finished = true;
      if (!released) return release();
      if (!sink || closed) return;
      // the body is being pulled: what is left, then its end
      if (handOver()) sink.close();
      closed = true;
      endBody?.();
    });
  return response;
}

export function wantsEventStream(request: Request): boolean {
  return (request.headers.get("accept") ?? "").toLowerCase().includes("text/event-stream");
}
