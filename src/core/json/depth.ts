import { PrxError } from "../errors.ts";
import { MAX_JSON_DEPTH } from "./limits.ts";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * Where JSON text first nests deeper than `max` arrays and objects: the offset of the bracket that opens level
 * `max + 1`, or -1 when it never does. One pass, no recursion, brackets inside strings (escapes included) ignored.
 * It does not check the syntax: malformed text within the depth is left for JSON.parse to refuse.
 */
export function jsonDepthViolation(text: string, max: number = MAX_JSON_DEPTH): number {
  return scanJson(text, max, null);
}

/** Strings a scan collects: those of at least `minChars` characters, each as [start, end) of its characters. */
export interface LongStrings {
  minChars: number;
  spans: Array<[number, number]>;
}

/** jsonDepthViolation's scan, collecting into `long` the long strings it passes (up to the violation, if any). */
export function scanJson(text: string, max: number, long: LongStrings | null): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const close = closingQuote(text, i + 1);
      if (close < 0) return -1;
      if (long && close - i - 1 >= long.minChars) long.spans.push([i + 1, close]);
      i = close;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return i;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
  return -1;
}

/**
 * The offset of the quote that ends the string starting at `from`, or -1 when it is not closed. A string is skipped
 * with indexOf (a data URL is hundreds of kilobytes of one string): a quote ends it unless an odd run of
 * backslashes comes right before it.
 */
function closingQuote(text: string, from: number): number {
  for (let quote = text.indexOf('"', from); quote >= 0; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (quote - backslashes - 1 >= from && text.charCodeAt(quote - backslashes - 1) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return -1;
}

/**
 * The error for `text` when it nests deeper than `max`, else null: LIMIT_EXCEEDED (a 400 at the gateway) naming
 * `what` (e.g. "the request body"), the limit and the character where it was passed.
 */
export function jsonDepthError(text: string, what: string, max: number = MAX_JSON_DEPTH): PrxError | null {
  const offset = jsonDepthViolation(text, max);
  return offset < 0 ? null : depthErrorAt(offset, what, max);
}

/** The error for a document passing `max` levels at `offset`. */
export function depthErrorAt(offset: number, what: string, max: number): PrxError {
  return new PrxError("LIMIT_EXCEEDED", `${what}: JSON nesting deeper than ${max} levels at character ${offset}`, {
    hint: `flatten the document to at most ${max} nested arrays and objects`,
    details: { limit: max },
  });
}

/** Throws jsonDepthError's error when `text` nests deeper than `max`. */
export function assertJsonDepth(text: string, what: string, max: number = MAX_JSON_DEPTH): void {
  const error = jsonDepthError(text, what, max);
  if (error) throw error;
}

/**
 * JSON.parse for text from outside prx: the depth is checked first (LIMIT_EXCEEDED naming `what`), then syntax
 * errors are JSON.parse's own SyntaxError, so callers keep their handling of malformed text.
 */
export function parseJsonBounded(text: string, what: string): unknown {
  assertJsonDepth(text, what);
  return JSON.parse(text);
}
