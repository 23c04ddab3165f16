import type { PrxError } from "./errors.ts";

/** How one body (a response's, or a request's: the gateway's) may be read: at most `maxBytes` (decoded), until `signal` aborts. */
export interface BodyBounds {
  /** Most bytes accepted (after content decoding); one more and reading stops. */
  maxBytes: number;
  /** The time cap (the request's AbortSignal.timeout, or a caller's idle timer) and cancellation: reading stops with `errors.aborted`. */
  signal?: AbortSignal;
  /**
   * `signal` is the one the response was fetched with: Bun then ends a pending body read itself when it aborts, so a
   * body of declared length is read with no listener of this reader's own.
   */
  signalEndsBody?: boolean;
  /** Called after every received chunk (a caller's idle timer). */
  onChunk?: () => void;
  /** The errors to throw, naming the cap and who answered. */
  errors: {
    tooLarge(maxBytes: number): PrxError;
    /** `signal` aborted (with this reason: a TimeoutError for a time cap). */
    aborted(reason: unknown): PrxError;
    /** The connection failed mid-body. */
    failed(cause: unknown): PrxError;
  };
}

/**
 * Read a response body as a stream, refusing more than `maxBytes` and stopping when `signal` aborts: the stream is
 * cancelled at the first byte past the cap (nothing more is read, whatever the body declared or how it is
 * compressed), so memory stays at the cap however large the answer is.
 */
export async function readBoundedBytes(response: Pick<Response, "headers" | "body" | "arrayBuffer">, bounds: BodyBounds): Promise<Uint8Array> {
  const { maxBytes, errors } = bounds;
  const declared = Number(response.headers.get("content-length") ?? "NaN");
  const encoded = (response.headers.get("content-encoding") ?? "identity") !== "identity";
  // a declared length counts the wire bytes: past the cap it is refused unread, unless decoding could change it
  if (!encoded && Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw errors.tooLarge(maxBytes);
  }
  if (bounds.signalEndsBody && !encoded && Number.isFinite(declared)) {
    try {
      return new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      throw bounds.signal?.aborted ? errors.aborted(bounds.signal.reason) : errors.failed(error);
    }
  }
  let reject: ((error: PrxError) => void) | undefined;
  let stoppedWith: PrxError | undefined;
  const stopped = new Promise<never>((_, no) => (reject = no));
  stopped.catch(() => undefined);
  const stop = (error: PrxError) => reject!((stoppedWith ??= error));
  const onAbort = () => stop(errors.aborted(bounds.signal?.reason));
  if (bounds.signal?.aborted) onAbort();
  else bounds.signal?.addEventListener("abort", onAbort, { once: true });
  // the request's own signal may end the stream before this reader hears of it
  const failure = (error: unknown) => stoppedWith ?? (bounds.signal?.aborted ? errors.aborted(bounds.signal.reason) : errors.failed(error));
  // a declared length within the cap is all the server can send: read natively (touching `body` would make Bun build
  // a ReadableStream this read does not need)
  if (!encoded && Number.isFinite(declared)) {
    try {
      return new Uint8Array(await Promise.race([response.arrayBuffer(), stopped]));
    } catch (error) {
      throw failure(error);
    } finally {
      bounds.signal?.removeEventListener("abort", onAbort);
    }
  }
  if (!response.body) {
    bounds.signal?.removeEventListener("abort", onAbort);
    return new Uint8Array(0);
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  let done = false;
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await Promise.race([reader.read(), stopped]);
      } catch (error) {
        throw failure(error);
      }
      if (chunk.done) {
        done = true;
        break;
      }
      received += chunk.value.byteLength;
      if (received > maxBytes) throw errors.tooLarge(maxBytes);
      chunks.push(chunk.value);
      bounds.onChunk?.();
    }
  } finally {
    bounds.signal?.removeEventListener("abort", onAbort);
    if (!done) void reader.cancel().catch(() => undefined);
  }
  if (chunks.length === 1) return chunks[0]!;
  const whole = new Uint8Array(received);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole;
}

/** Decoding without `stream` keeps no state between calls: one decoder serves every body. */
const UTF8 = new TextDecoder("utf-8");

/** readBoundedBytes as UTF-8 text. */
export async function readBoundedText(response: Response, bounds: BodyBounds): Promise<string> {
  return UTF8.decode(await readBoundedBytes(response, bounds));
}
