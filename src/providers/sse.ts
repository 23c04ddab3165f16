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
 * Parse an SSE byte stream into events (see SseParser for the rules). A streaming TextDecoder keeps multibyte
 * characters that straddle chunk boundaries intact.
 */
export function readSseEvents(body: ReadableStream<Uint8Array>, options: SseReadOptions): AsyncGenerator<SseEvent> {
  return readSse(body, options, (event) => event);
}

/** A data payload parsed as JSON, or the end marker. */
export type SseJson = { event?: string; json: unknown };

/** Like readSseEvents, but parses each data payload as JSON and stops at `[DONE]`. */
export function readSseJson(body: ReadableStream<Uint8Array>, options: SseReadOptions): AsyncGenerator<SseJson> {
  return readSse(body, options, (event) => eventJson(event, options.provider));
}

/** What `take` makes of an event: the item to hand on, SKIP to drop it, or STOP to end the stream there. */
const SKIP = Symbol("skip");
const STOP = Symbol("stop");

const STREAM = { stream: true };

/** The one loop both readers share: bytes to text to events, each passed through `take` in the same generator. */
async function* readSse<T>(
  body: ReadableStream<Uint8Array>,
  options: SseReadOptions,
  take: (event: SseEvent) => T | typeof SKIP | typeof STOP,
): AsyncGenerator<T> {
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
      for (let event = parser.next(done); event; event = parser.next(done)) {
        const item = take(event);
        if (item === STOP) return;
        if (item !== SKIP) yield item;
      }
      parser.checkTail();
    }
    const last = parser.finish();
    if (last) {
      const item = take(last);
      if (item === STOP) return;
      if (item !== SKIP) yield item;
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

/**
 * Splits decoded SSE text into events, one at a time (WHATWG EventSource rules: lines end in CRLF, LF or CR; a blank
 * line dispatches; lines starting with ":" are comments; "field: value" strips one leading space). Lines are read in
 * place from the text; only field values are sliced out. Errors come in stream order: an oversize line or event
 * throws when the parser reaches it, after the events before it were taken.
 */
class SseParser {
  private text = "";
  private start = 0;
  private lf = -1;
  private cr = -1;
  private data: string | undefined;
  /** UTF-8 bytes of `data`, or an upper bound (3 per UTF-16 unit) while `dataBytesExact` is false. */
  private dataBytes = 0;
  private dataBytesExact = false;
  private eventName: string | undefined;

  constructor(
    private readonly provider: string,
    private readonly maxBytes: number,
  ) {}

  /** Appends decoded text; the lines not yet taken stay. */
  push(text: string): void {
    // a remembered "none" no longer holds once text is added
    this.lf = this.lf >= this.start ? this.lf - this.start : -1;
    this.cr = this.cr >= this.start ? this.cr - this.start : -1;
    this.text = this.start > 0 ? this.text.slice(this.start) + text : this.text + text;
    this.start = 0;
  }

  /** The next complete event in the text so far, or undefined when more text is needed. `final`: no more text comes. */
  next(final: boolean): SseEvent | undefined {
    const text = this.text;
    for (;;) {
      const start = this.start;
      // the next LF and CR at or after `start` are remembered: a chunk without CR is not searched for one per line
      if (text.charCodeAt(start) === LF) this.lf = start;
      else if (this.lf < start && this.lf !== -2) this.lf = indexOrNone(text, "\n", start);
      if (this.cr < start && this.cr !== -2) this.cr = indexOrNone(text, "\r", start);
      const end = this.lf === -2 ? this.cr : this.cr === -2 ? this.lf : Math.min(this.lf, this.cr);
      if (end === -2) return undefined;
      let next = end + 1;
      if (end === this.cr) {
        // A CR at the very end may be the first half of a CRLF still in flight.
        if (end === text.length - 1 && !final) return undefined;
        if (text.charCodeAt(end + 1) === LF) next = end + 2;
      }
      this.start = next;
      const event = this.line(text, start, end);
      if (event) return event;
    }
  }

  /** Checks the unfinished tail (a line still without its end) against the cap. */
  checkTail(): void {
    const tail = this.text.length - this.start;
    if (tail * 3 > this.maxBytes && Buffer.byteLength(this.text.slice(this.start).replace(/\r$/, "")) > this.maxBytes) {
      throw tooLarge(this.provider, this.maxBytes, "a streamed line");
    }
  }

  /** At the end of the stream: the last line without its end, then whatever event is pending. */
  finish(): SseEvent | undefined {
    const text = this.text;
    const start = this.start;
    this.text = "";
    this.start = 0;
    this.lf = -1;
    this.cr = -1;
    // a last line without its end never dispatches (it is not blank), but it is checked and counted like any other
    if (start < text.length) this.line(text, start, text.length);
    // Some servers close without the final blank line: dispatch what is pending.
    return this.line("", 0, 0);
  }

  private line(text: string, start: number, end: number): SseEvent | undefined {
    const length = end - start;
    // a UTF-16 unit is at most 3 UTF-8 bytes: only a long line is measured
    if (length * 3 > this.maxBytes && Buffer.byteLength(text.slice(start, end)) > this.maxBytes) {
      throw tooLarge(this.provider, this.maxBytes, "a streamed line");
    }
    if (length === 0) {
      const data = this.data;
      if (data === undefined) {
        this.eventName = undefined;
        return undefined;
      }
      const dispatched: SseEvent = { data };
      if (this.eventName !== undefined) dispatched.event = this.eventName;
      this.data = undefined;
      this.dataBytes = 0;
      this.dataBytesExact = false;
      this.eventName = undefined;
      return dispatched;
    }
    if (text.charCodeAt(start) === COLON) return undefined;
    let field: string;
    let valueStart: number;
    if (text.startsWith("data:", start)) {
      field = "data";
      valueStart = start + 5;
    } else {
      const colon = text.indexOf(":", start);
      const fieldEnd = colon === -1 || colon > end ? end : colon;
      field = text.slice(start, fieldEnd);
      valueStart = fieldEnd === end ? end : fieldEnd + 1;
    }
    if (valueStart < end && text.charCodeAt(valueStart) === SPACE) valueStart++;
    if (field === "data") {
      const value = text.slice(valueStart, end);
      const joined = this.data === undefined ? 0 : 1;
      if (this.dataBytesExact) this.dataBytes += Buffer.byteLength(value) + joined;
      else {
        this.dataBytes += value.length * 3 + joined;
        if (this.dataBytes > this.maxBytes) {
          this.dataBytes = Buffer.byteLength(value) + joined + (this.data === undefined ? 0 : Buffer.byteLength(this.data));
          this.dataBytesExact = true;
        }
      }
      if (this.dataBytes > this.maxBytes) throw tooLarge(this.provider, this.maxBytes, "a streamed event");
      this.data = this.data === undefined ? value : `${this.data}\n${value}`;
    } else if (field === "event") this.eventName = text.slice(valueStart, end);
    return undefined;
  }
}

const LF = 0x0a;
const SPACE = 0x20;
const COLON = 0x3a;

/** indexOf, with -2 for "not found" so that it never reads as a position before `from`. */
function indexOrNone(text: string, search: string, from: number): number {
  const at = text.indexOf(search, from);
  return at === -1 ? -2 : at;
}
