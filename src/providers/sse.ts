import { PrxError } from "../core/errors.ts";
import { jsonDepthError, MAX_JSON_DEPTH } from "../core/json/index.ts";
import { excerpt } from "./response-errors.ts";
import { SseParser, type SseEvent } from "./sse-parser.ts";

/** Largest whole (not streamed) provider response we accept before giving up. */
export const PROVIDER_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/**
 * A streamed (SSE) answer has no total cap (its idle time is bounded instead: timeout_ms between chunks); each line
 * and each event's data (UTF-8 bytes) is capped at this, or at the provider's maxResponseBytes when lower.
 */
export const SSE_MAX_EVENT_BYTES = 1024 * 1024;
export interface SseReadOptions {
  /** Provider name, for error messages. */
  provider: string;
  /** Largest line, and largest event data; SSE_MAX_EVENT_BYTES unless given. */
  maxEventBytes?: number;
  /** Called after every received chunk (lets the caller reset an idle timer). */
  onChunk?: () => void;
}

/**
 * Parse an SSE byte stream into events (see SseParser for the rules). A streaming TextDecoder keeps multibyte
 * characters that straddle chunk boundaries intact.
 */
export function readSseEvents(body: ReadableStream<Uint8Array>, options: SseReadOptions): AsyncGenerator<SseEvent> {
  return oneByOne(readSse(body, options, (event) => event));
}

/** A data payload parsed as JSON, or the end marker. */
export type SseJson = { event?: string; json: unknown };

/** Like readSseEvents, but parses each data payload as JSON and stops at `[DONE]`. */
export function readSseJson(body: ReadableStream<Uint8Array>, options: SseReadOptions): AsyncGenerator<SseJson> {
  return oneByOne(readSseJsonReads(body, options));
}

/**
 * Like readSseJson, but the events of each read of the stream come together, in order (never an empty list): what
 * arrived at once can be handed on at once.
 */
export function readSseJsonReads(body: ReadableStream<Uint8Array>, options: SseReadOptions): AsyncGenerator<SseJson[]> {
  return readSse(body, options, (event) => eventJson(event, options.provider));
}

async function* oneByOne<T>(reads: AsyncGenerator<T[]>): AsyncGenerator<T> {
  for await (const items of reads) yield* items;
}

/** What `take` makes of an event: the item to hand on, SKIP to drop it, or STOP to end the stream there. */
const SKIP = Symbol("skip");
const STOP = Symbol("stop");

const STREAM = { stream: true };

/** The one loop every reader shares: bytes to text to events, each passed through `take`, the items of each read together. */
async function* readSse<T>(
  body: ReadableStream<Uint8Array>,
  options: SseReadOptions,
  take: (event: SseEvent) => T | typeof SKIP | typeof STOP,
): AsyncGenerator<T[]> {
  const parser = new SseParser(options.provider, options.maxEventBytes ?? SSE_MAX_EVENT_BYTES);
  const decoder = new TextDecoder("utf-8");
  const reader = body.getReader();
  let done = false;
  try {
    while (!done) {
      const chunk = await reader.read();
      if (chunk.done) {
        done = true;
        parser.push(decoder.decode());
      } else {
        options.onChunk?.();
        parser.push(decoder.decode(chunk.value, STREAM));
      }
      // errors come in stream order: a bad event fails the stream after the events before it were handed on
      const items: T[] = [];
      let stopped = false;
      let failure: { error: unknown } | undefined;
      try {
        for (let event = parser.next(done); event; event = parser.next(done)) {
          const item = take(event);
          if (item === STOP) {
            stopped = true;
            break;
          }
          if (item !== SKIP) items.push(item);
        }
      } catch (error) {
        failure = { error };
      }
      if (items.length > 0) yield items;
      if (failure) throw failure.error;
      if (stopped) return;
      parser.checkTail();
    }
    const last = parser.finish();
    if (last) {
      const item = take(last);
      if (item !== STOP && item !== SKIP) yield [item];
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

function eventJson(event: SseEvent, provider: string): SseJson | typeof SKIP | typeof STOP {
  const text = event.data.trim();
  if (text === "[DONE]") return STOP;
  if (text === "") return SKIP;
  if (openersExceed(text, MAX_JSON_DEPTH)) {
    const deep = jsonDepthError(text, `${provider}: stream event`);
    if (deep) {
      throw new PrxError("PROVIDER_PROTOCOL", deep.message, {
        hint: deep.hint,
        status: 502,
        details: { provider, limit: MAX_JSON_DEPTH },
      });
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new PrxError("PROVIDER_PROTOCOL", `${provider}: malformed JSON in stream: ${excerpt(text)}`, {
      hint: "the server does not speak the expected streaming format; check base_url and kind",
      status: 502,
      details: { provider },
    });
  }
  return event.event === undefined ? { json } : { event: event.event, json };
}

/**
 * Whether `text` holds more than `max` opening brackets: text nesting deeper than `max` must, so the full depth scan
 * runs only for text that passes this (brackets inside strings count too, which only sends more text to the scan).
 */
function openersExceed(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let count = 0;
  for (let at = text.indexOf("{"); at !== -1; at = text.indexOf("{", at + 1)) if (++count > max) return true;
  for (let at = text.indexOf("["); at !== -1; at = text.indexOf("[", at + 1)) if (++count > max) return true;
  return false;
}
