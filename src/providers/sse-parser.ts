import { tooLarge } from "./response-errors.ts";

/** One dispatched Server-Sent Event. */
export interface SseEvent {
  /** The `event:` field, when the server sent one. */
  event?: string;
  /** The `data:` lines joined with "\n". */
  data: string;
}

/**
 * Splits decoded SSE text into events, one at a time (WHATWG EventSource rules: lines end in CRLF, LF or CR; a blank
 * line dispatches; lines starting with ":" are comments; "field: value" strips one leading space). Lines are read in
 * place from the text; only field values are sliced out. Errors come in stream order: an oversize line or event
 * throws when the parser reaches it, after the events before it were taken.
 */
export class SseParser {
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
