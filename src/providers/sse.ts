import { PrxError } from "../core/errors.ts";
import { jsonDepthError, MAX_JSON_DEPTH } from "../core/json/index.ts";

/** Largest whole (not streamed) provider response we accept before giving up. */
export const PROVIDER_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/**
 * A streamed (SSE) answer has no total cap (its idle time is bounded instead: timeout_ms between chunks); each line
 * and each event's data (UTF-8 bytes) is capped at this, or at the provider's maxResponseBytes when lower.
 */
export const SSE_MAX_EVENT_BYTES = 1024 * 1024;
/** How much of an offending SSE line an error message quotes. */
export const SSE_LINE_EXCERPT_CHARS = 200;

/** One dispatched Server-Sent Event. */
export interface SseEvent {
  /** The `event:` field, when the server sent one. */
  event?: string;
  /** The `data:` lines joined with "\n". */
  data: string;
}

export interface SseReadOptions {
  /** Provider name, for error messages. */
  provider: string;
  /** Largest line, and largest event data; SSE_MAX_EVENT_BYTES unless given. */
  maxEventBytes?: number;
  /** Called after every received chunk (lets the caller reset an idle timer). */
  onChunk?: () => void;
}

export function excerpt(text: string, max = SSE_LINE_EXCERPT_CHARS): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}...` : flat;
}

export function tooLarge(provider: string, maxBytes: number, what = "response"): PrxError {
  return new PrxError("PROVIDER_RESPONSE_TOO_LARGE", `${provider}: ${what} exceeded ${maxBytes} bytes`, {
    hint: "lower max_tokens, or check that base_url points at a chat completions API",
    status: 502,
    details: { provider, maxBytes },
  });
}

/**
 * Parse an SSE byte stream into events (WHATWG EventSource rules: lines end in CRLF, LF or CR; a blank line
 * dispatches; lines starting with ":" are comments; "field: value" strips one leading space). A streaming
 * TextDecoder keeps multibyte characters that straddle chunk boundaries intact.
 */
export async function* readSseEvents(
  body: ReadableStream<Uint8Array>,
  options: SseReadOptions,
): AsyncGenerator<SseEvent> {
  const maxBytes = options.maxEventBytes ?? SSE_MAX_EVENT_BYTES;
  const decoder = new TextDecoder("utf-8");
  const reader = body.getReader();
  let buffer = "";
  let data: string[] = [];
  let dataBytes = 0;
  let eventName: string | undefined;
  let done = false;

  const handleLine = (line: string): SseEvent | undefined => {
    // a UTF-16 unit is at most 3 UTF-8 bytes: only a long line is measured
    if (line.length * 3 > maxBytes && Buffer.byteLength(line) > maxBytes) throw tooLarge(options.provider, maxBytes, "a streamed line");
    if (line === "") {
      if (data.length === 0) {
        eventName = undefined;
        return undefined;
      }
      const dispatched: SseEvent = { data: data.join("\n") };
      if (eventName !== undefined) dispatched.event = eventName;
      data = [];
      dataBytes = 0;
      eventName = undefined;
      return dispatched;
    }
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") {
      dataBytes += Buffer.byteLength(value) + (data.length > 0 ? 1 : 0);
      if (dataBytes > maxBytes) throw tooLarge(options.provider, maxBytes, "a streamed event");
      data.push(value);
    } else if (field === "event") eventName = value;
    return undefined;
  };

  try {
    while (!done) {
      const chunk = await reader.read();
      if (chunk.done) {
        done = true;
        buffer += decoder.decode();
      } else {
        options.onChunk?.();
        buffer += decoder.decode(chunk.value, { stream: true });
      }
      let start = 0;
      for (;;) {
        const lf = buffer.indexOf("\n", start);
        const cr = buffer.indexOf("\r", start);
        let end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
        if (end === -1) break;
        let next = end + 1;
        if (buffer[end] === "\r") {
          // A CR at the very end may be the first half of a CRLF still in flight.
          if (end === buffer.length - 1 && !done) break;
          if (buffer[end + 1] === "\n") next = end + 2;
        }
        const event = handleLine(buffer.slice(start, end));
        start = next;
        if (event) yield event;
      }
      buffer = buffer.slice(start);
      // a line still without its end
      if (buffer.length * 3 > maxBytes && Buffer.byteLength(buffer.replace(/\r$/, "")) > maxBytes) throw tooLarge(options.provider, maxBytes, "a streamed line");
    }
    if (buffer !== "") {
      const event = handleLine(buffer);
      if (event) yield event;
    }
    // Some servers close without the final blank line: dispatch what is pending.
    const last = handleLine("");
    if (last) yield last;
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** A data payload parsed as JSON, or the end marker. */
export type SseJson = { event?: string; json: unknown };

/** Like readSseEvents, but parses each data payload as JSON and stops at `[DONE]`. */
export async function* readSseJson(
  body: ReadableStream<Uint8Array>,
  options: SseReadOptions,
): AsyncGenerator<SseJson> {
  for await (const event of readSseEvents(body, options)) {
    const text = event.data.trim();
    if (text === "[DONE]") return;
    if (text === "") continue;
    const deep = jsonDepthError(text, `${options.provider}: stream event`);
    if (deep) {
      throw new PrxError("PROVIDER_PROTOCOL", deep.message, {
        hint: deep.hint,
        status: 502,
        details: { provider: options.provider, limit: MAX_JSON_DEPTH },
      });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new PrxError("PROVIDER_PROTOCOL", `${options.provider}: malformed JSON in stream: ${excerpt(text)}`, {
        hint: "the server does not speak the expected streaming format; check base_url and kind",
        status: 502,
        details: { provider: options.provider },
      });
    }
    yield event.event === undefined ? { json } : { event: event.event, json };
  }
}
