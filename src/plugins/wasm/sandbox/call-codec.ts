/**
 * The two messages of every sandbox call, as one string each instead of an object: a Worker copies a string
 * without walking an object graph, which saved 1-8 us per round trip under load on the reference machine
 * (structured clone of `{type, id, cap, fn, args}` and `{type, id, ok, value, execUs}`). Only the common case has
 * this form: string arguments and a string result. Anything else (bytes, numbers, errors) travels as the object
 * messages of protocol.ts. No zod here: the sandbox Worker imports this file.
 *
 *   call:   "c" id "," cap "," fn ("," length of each argument in UTF-16 units)* "|" the arguments concatenated
 *   result: "r" id "," execUs "|" value
 */

export interface EncodedCall {
  id: number;
  cap: number;
  fn: string;
  args: string[];
}

export interface EncodedResult {
  id: number;
  execUs: number;
  value: string;
}

const FN_SAFE = /^[^,|]+$/;
const DIGITS = /^\d+$/;

/** A non-negative integer written in decimal digits, else NaN (Number("") would be 0). */
function count(text: string): number {
  return DIGITS.test(text) ? Number(text) : NaN;
}

/** The call as a string, or null when it cannot take this form (an argument that is not a string). */
export function encodeCall(id: number, cap: number, fn: string, args: readonly unknown[]): string | null {
  let head = `c${id},${cap},${fn}`;
  let body = "";
  for (const arg of args) {
    if (typeof arg !== "string") return null;
    head += `,${arg.length}`;
    body += arg;
  }
  return FN_SAFE.test(fn) ? `${head}|${body}` : null;
}

/** A call string back into its parts; null when it is not one (the Worker reports it). */
export function decodeCall(text: string): EncodedCall | null {
  const bar = text.indexOf("|");
  if (text.charCodeAt(0) !== 99 /* c */ || bar < 0) return null;
  const head = text.slice(1, bar).split(",");
  if (head.length < 3) return null;
  const id = count(head[0]!);
  const cap = count(head[1]!);
  if (Number.isNaN(id) || Number.isNaN(cap)) return null;
  const args: string[] = [];
  let at = bar + 1;
  for (let i = 3; i < head.length; i++) {
    const length = count(head[i]!);
    if (Number.isNaN(length) || at + length > text.length) return null;
    args.push(text.slice(at, at + length));
    at += length;
  }
  return at === text.length ? { id, cap, fn: head[2]!, args } : null;
}

/** A successful call's string result, or null when the value is not a string. */
export function encodeResult(id: number, execUs: number, value: unknown): string | null {
  return typeof value === "string" ? `r${id},${execUs}|${value}` : null;
}

/** A result string back into its parts; null when it is not one. */
export function decodeResult(text: string): EncodedResult | null {
  const bar = text.indexOf("|");
  const comma = text.indexOf(",");
  if (text.charCodeAt(0) !== 114 /* r */ || comma < 0 || bar < comma) return null;
  const id = count(text.slice(1, comma));
  const exec = text.slice(comma + 1, bar);
  const execUs = exec === "" ? NaN : Number(exec);
  if (Number.isNaN(id) || !Number.isFinite(execUs)) return null;
  return { id, execUs, value: text.slice(bar + 1) };
}
