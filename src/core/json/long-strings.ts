import { depthErrorAt, scanJson, type LongStrings } from "./depth.ts";
import { MAX_JSON_DEPTH } from "./limits.ts";

/**
 * Strings of at least this many characters holding nothing JSON escapes are taken from the text as slices (which
 * share its memory) instead of being copied out by JSON.parse.
 */
export const SLICED_STRING_MIN_CHARS = 16 * 1024;

/** A character that ends a JSON string, starts an escape, or may not stand in one as it is. */
const NOT_PLAIN = /[\u0000-\u001f"\\]/;
const COLON = 0x3a;

/**
 * Stands in the JSON text for a long string until the parsed value gets the slice back; its random part keeps text
 * that merely looks like one from being taken for one.
 */
const TAG = `prx-slice-${crypto.randomUUID()}-`;

/**
 * parseJsonBounded(text, what) with each long plain string value (SLICED_STRING_MIN_CHARS or more characters, none
 * of them a quote, backslash or control character: base64 image data) a slice of `text`. JSON.parse copies every
 * string it reads, character by character: for a request carrying a data URL that is hundreds of kilobytes of
 * fresh memory and the largest part of parsing it. The depth scan finds the long strings as it passes them; each
 * plain one is replaced by a short stand-in, the text parsed, and the slices put where their stand-ins came out.
 * The value is the one JSON.parse gives, and malformed text throws JSON.parse's own error for it: the replaced
 * characters can neither make nor mend a syntax error, as a string of plain characters is well-formed whatever
 * they are. Too deep: LIMIT_EXCEEDED naming `what`, before anything is parsed.
 */
export function parseJsonBoundedSlicing(text: string, what: string): unknown {
  const long: LongStrings = { minChars: SLICED_STRING_MIN_CHARS, spans: [] };
  const offset = scanJson(text, MAX_JSON_DEPTH, long);
  if (offset >= 0) throw depthErrorAt(offset, what, MAX_JSON_DEPTH);
  return parseSlicing(text, plainValues(text, long.spans));
}

/** The spans of `long` that are values (not keys) holding only plain characters. */
export function plainValues(text: string, long: ReadonlyArray<[number, number]>): Array<[number, number]> {
  return long.filter(([start, end]) => !isKey(text, end + 1) && !NOT_PLAIN.test(text.slice(start, end)));
}

function parseSlicing(text: string, spans: ReadonlyArray<[number, number]>): unknown {
  if (spans.length === 0) return JSON.parse(text);
  const parts: string[] = [];
  let from = 0;
  spans.forEach(([start, end], i) => {
    parts.push(text.slice(from, start), TAG, String(i));
    from = end;
  });
  parts.push(text.slice(from));
  let value: unknown;
  try {
    value = JSON.parse(parts.join(""));
  } catch {
    // the text's own error, as JSON.parse reports it
    return JSON.parse(text);
  }
  const slices = spans.map(([start, end]) => text.slice(start, end));
  const restored = restoreSlices(value, slices);
  // every stand-in came back exactly once, or the text is parsed as it is
  return restored.count === slices.length ? restored.value : JSON.parse(text);
}

/** Whether the first character from `at` that is not JSON whitespace is a colon. */
function isKey(text: string, at: number): boolean {
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    return c === COLON;
  }
  return false;
}

/** `value` with each stand-in string replaced by its slice, and how many were (a walk without recursion). */
function restoreSlices(value: unknown, slices: readonly string[]): { value: unknown; count: number } {
  const slice = (item: unknown): string | undefined => {
    if (typeof item !== "string" || !item.startsWith(TAG)) return undefined;
    const index = item.slice(TAG.length);
    return /^\d+$/.test(index) ? slices[Number(index)] : undefined;
  };
  const root = slice(value);
  if (root !== undefined) return { value: root, count: 1 };
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && count < slices.length) {
    const node = pending.pop();
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const found = slice(node[i]);
        if (found !== undefined) {
          node[i] = found;
          count++;
        } else if (typeof node[i] === "object" && node[i] !== null) pending.push(node[i]);
      }
    } else if (typeof node === "object" && node !== null) {
      const record = node as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const found = slice(record[key]);
        if (found !== undefined) {
          record[key] = found;
          count++;
        } else if (typeof record[key] === "object" && record[key] !== null) pending.push(record[key]);
      }
    }
  }
  return { value, count };
}
