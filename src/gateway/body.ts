import { readBoundedBytes } from "../core/bounded-body.ts";
import { isPrxError, PrxError, toPrxError } from "../core/errors.ts";
import { parseJsonBoundedSlicing } from "../core/json/index.ts";
import { factsOf, withinBodyDeadline } from "./front/index.ts";

/**
 * The parse hook of every route that takes a JSON body (Elysia's `parse` option, beside the route's `body` schema):
 * content type (415), size cap from both Content-Length and the bytes actually streamed (413, naming the limit),
 * nesting depth (400 naming MAX_JSON_DEPTH, checked before anything parses), UTF-8 and JSON syntax (400 naming the
 * problem). Elysia then validates the value with the route's schema (400 naming the field, errors.ts). `maxBytes` is
 * read per request (the config's limit, or the route's own).
 */
export function jsonParser(maxBytes: number | (() => number)): (context: { request: Request }) => Promise<unknown> {
  const limit = typeof maxBytes === "number" ? () => maxBytes : maxBytes;
  return async ({ request }) => {
    requireJson(request);
    return parseJsonBody(await readBounded(request, limit(), () => request.blob()));
  };
}

/** 415 unless the request says its body is JSON. */
export function requireJson(request: Request): void {
  const type = request.headers.get("content-type");
  if (!isJsonContentType(type)) {
    throw new PrxError(
      "UNSUPPORTED_MEDIA_TYPE",
      `unsupported content type ${type ? `"${type}"` : "(none)"}; send application/json`,
      { hint: "set the header Content-Type: application/json" },
    );
  }
}

/** Decoding without `stream` keeps no state between calls, so one strict decoder serves every request. */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** A JSON value from request bytes: 400 when empty, nested too deeply, not UTF-8 or not JSON. */
export function parseJson(bytes: Uint8Array): unknown {
  if (bytes.length === 0) throw emptyBody();
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new PrxError("BAD_REQUEST", "the request body is not valid UTF-8");
  }
  return parseJsonText(text);
}

/**
 * parseJson of a body held as a Blob (the bytes the server received, not copied): its text is made from those
 * bytes without a copy when they are ASCII (Bun), where decoding them makes a fresh string of the body's size.
 * Blob.text() decodes as the strict decoder does (a byte order mark dropped) except that it puts U+FFFD where the
 * bytes are not UTF-8: text holding one is decoded again from the bytes, strictly.
 */
async function parseJsonBody(body: Blob | Uint8Array): Promise<unknown> {
  if (body instanceof Uint8Array) return parseJson(body);
  if (body.size === 0) throw emptyBody();
  const text = await body.text();
  return text.includes("\uFFFD") ? parseJson(await body.bytes()) : parseJsonText(text);
}

function emptyBody(): PrxError {
  return new PrxError("BAD_REQUEST", "the request body is empty; expected a JSON object");
}

/** A JSON value from the body's text: 400 when nested too deeply or not JSON; long base64 strings are its slices. */
function parseJsonText(text: string): unknown {
  try {
    return parseJsonBoundedSlicing(text, "the request body");
  } catch (cause) {
    if (isPrxError(cause)) throw cause;
    throw new PrxError("BAD_REQUEST", `malformed JSON in the request body: ${(cause as Error).message}`, { cause });
  }
}

export function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  if (value === "application/json") return true; // what clients send, without making the strings below
  const mime = value.split(";", 1)[0]!.trim().toLowerCase();
  return mime === "application/json" || (mime.startsWith("application/") && mime.endsWith("+json"));
}

export function tooLarge(size: number | string, maxBytes: number): PrxError {
  return new PrxError(
    "PAYLOAD_TOO_LARGE",
    `request body of ${size} bytes exceeds gateway.max_body_bytes = ${maxBytes}`,
    {
      hint: "send a smaller body or raise gateway.max_body_bytes in config.toml",
      details: { limit: maxBytes },
    },
  );
}

/**
 * Content-Length over the limit is refused before reading; a body within its declared length is read whole (the
 * server never hands over more than Content-Length); chunked bodies are counted as they stream. A body that has not
 * arrived by its deadline (front/body-deadline.ts) is 408.
 */
export function readLimited(request: Request, maxBytes: number): Promise<Uint8Array> {
  return readBounded(request, maxBytes, async () => new Uint8Array(await request.arrayBuffer()));
}

/** readLimited, a body of declared length read by `whole` (a Blob for JSON bodies). */
async function readBounded<T>(request: Request, maxBytes: number, whole: () => Promise<T>): Promise<T | Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge(declared, maxBytes);
  const facts = factsOf(request);
  if (!facts) return readBody(request, declared, maxBytes, whole);
  const body = await withinBodyDeadline(readBody(request, declared, maxBytes, whole), facts);
  facts.bodyRead = true;
  return body;
}

function readBody<T>(
  request: Request,
  declared: string | null,
  maxBytes: number,
  whole: () => Promise<T>,
): Promise<T | Uint8Array> {
  // Touching `request.body` makes Bun build a ReadableStream for it (~5 us per request at concurrency 16), so a
  // declared length is read without it.
  if (declared !== null && /^\d+$/.test(declared)) return whole();
  return readBoundedBytes(request, {
    maxBytes,
    errors: { tooLarge: (max) => tooLarge(`more than ${max}`, max), aborted: (reason) => toPrxError(reason), failed: (cause) => toPrxError(cause) },
  });
}
