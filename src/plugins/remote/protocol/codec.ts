import { PrxError } from "../../../core/errors.ts";
import { jsonDepthError } from "../../../core/json/index.ts";
import { REMOTE_MAX_MESSAGE_BYTES } from "../limits.ts";

/**
 * Both transports carry one JSON text per message (a postMessage string or one NDJSON line), so the 4 MiB cap and
 * the malformed-input accounting are the same for Worker and subprocess.
 */
export function utf8Length(text: string): number {
  // UTF-16 length <= UTF-8 length <= 3 * UTF-16 length: skip the exact count when the answer is obvious.
  if (text.length * 3 <= REMOTE_MAX_MESSAGE_BYTES) return text.length;
  return Buffer.byteLength(text, "utf8");
}

/**
 * Serialize a message, refusing one larger than REMOTE_MAX_MESSAGE_BYTES; with `maxDepth` (a plugin sending to the
 * host, which refuses deeper lines), one nested deeper too, so a handler's result becomes an error reply naming it.
 */
export function encodeMessage(message: unknown, limit = REMOTE_MAX_MESSAGE_BYTES, maxDepth?: number): string {
  let text: string;
  try {
    text = JSON.stringify(message);
  } catch (cause) {
    throw new PrxError("REMOTE_PROTOCOL", `remote message cannot be serialized: ${(cause as Error).message}`, {
      cause,
      hint: "plugin results and arguments must be JSON (no functions, cycles or BigInt)",
    });
  }
  if (text === undefined) throw new PrxError("REMOTE_PROTOCOL", "remote message serialized to nothing");
  const size = text.length * 3 <= limit ? text.length : Buffer.byteLength(text, "utf8");
  if (size > limit) {
    throw new PrxError("PAYLOAD_TOO_LARGE", `remote message of ${size} bytes exceeds the ${limit}-byte limit`, {
      hint: "return or send less data per call (REMOTE_MAX_MESSAGE_BYTES)",
      details: { size, limit },
    });
  }
  if (maxDepth !== undefined) {
    const deep = jsonDepthError(text, "remote message", maxDepth);
    if (deep) throw deep;
  }
  return text;
}

export type DecodeOutcome =
  { ok: true; value: unknown } | { ok: false; reason: "oversize" | "malformed"; detail: string };

/**
 * Parse one received text; the caller validates the shape with the protocol schema. With `maxDepth` (the host reading
 * a plugin), text nested deeper is malformed before it is parsed.
 */
export function decodeText(text: string, limit = REMOTE_MAX_MESSAGE_BYTES, maxDepth?: number): DecodeOutcome {
  const size = text.length * 3 <= limit ? text.length : Buffer.byteLength(text, "utf8");
  if (size > limit) return { ok: false, reason: "oversize", detail: `${size} bytes > ${limit}` };
  if (maxDepth !== undefined) {
    const deep = jsonDepthError(text, "message", maxDepth);
    if (deep) return { ok: false, reason: "malformed", detail: `${deep.message}: ${preview(text)}` };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (cause) {
    return { ok: false, reason: "malformed", detail: `${(cause as Error).message}: ${preview(text)}` };
  }
}

export function preview(text: string, max = 120): string {
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

/**
 * Where lines that cannot be protocol messages went: `count` such lines in a row, the first of them at
 * chunk[start..end).
 */
export type RejectedLines = (chunk: Uint8Array, start: number, end: number, count: number) => void;

const OPEN_BRACE = 0x7b;
const isBlank = (byte: number | undefined) => byte === 0x20 || byte === 0x09 || byte === 0x0d;

/** The first `max` characters of bytes chunk[start..end), for a log line. */
export function previewBytes(chunk: Uint8Array, start: number, end: number, max = 120): string {
  const text = new TextDecoder().decode(chunk.subarray(start, Math.min(end, start + max)));
  return end - start > max ? `${text}...` : text;
}

/**
 * Splits a byte stream into lines without ever holding more than `limit` bytes of one line: the rest of an oversize
 * line is skipped up to its newline and reported once. With `onRejected`, a line that does not start with `{` (every
 * protocol message is a JSON object) is reported without being decoded, so garbage costs a byte check per line.
 * Lines are checked against `until` every 256 lines.
 */
export class LineDecoder {
  private parts: Uint8Array[] = [];
  private size = 0;
  private skipping = false;
  private readonly utf8 = new TextDecoder();

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onOversize: (bytes: number) => void,
    private readonly limit = REMOTE_MAX_MESSAGE_BYTES,
    private readonly onRejected?: RejectedLines,
  ) {}

  /**
   * Consume `chunk` from `from`. Returns where it stopped: the chunk's length, or earlier (after a whole line) once
   * `performance.now()` passed `until`; the caller then pushes the same chunk again from there.
   */
  push(chunk: Uint8Array, from = 0, until = Number.POSITIVE_INFINITY): number {
    let start = from;
    let lines = 0;
    // rejected lines in a row are reported once, with their count: garbage costs a few operations per line
    let rejected = 0;
    let firstStart = 0;
    let firstEnd = 0;
    const report = () => {
      if (rejected > 0) this.onRejected!(chunk, firstStart, firstEnd, rejected);
      rejected = 0;
    };
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl;
      if (this.onRejected && nl !== -1 && this.size === 0 && !this.skipping && this.rejects(chunk, start, end)) {
        if (rejected++ === 0) [firstStart, firstEnd] = [start, end];
      } else {
        report();
        this.take(chunk, start, end);
        if (nl === -1) {
          // keep a copy: the caller may reuse the chunk buffer
          if (!this.skipping && this.parts.length > 0) {
            const last = this.parts.pop()!;
            this.parts.push(last.slice());
          }
          return chunk.length;
        }
        this.finishLine();
      }
      start = nl + 1;
      if ((++lines & 255) === 0 && performance.now() >= until) break;
    }
    report();
    return start;
  }

  /** A whole line in this chunk, within the limit, whose first non-blank byte is not `{`. */
  private rejects(chunk: Uint8Array, start: number, end: number): boolean {
    if (end - start > this.limit) return false;
    let i = start;
    while (i < end && isBlank(chunk[i])) i++;
    return i < end && chunk[i] !== OPEN_BRACE;
  }

  private take(chunk: Uint8Array, start: number, end: number): void {
    if (this.skipping) {
      this.size += end - start;
    } else if (this.size + (end - start) > this.limit) {
      this.skipping = true;
      this.size += end - start;
      this.parts = [];
    } else if (end > start) {
      this.parts.push(chunk.subarray(start, end));
      this.size += end - start;
    }
  }

  private finishLine(): void {
    if (this.skipping) {
      const bytes = this.size;
      this.skipping = false;
      this.size = 0;
      this.onOversize(bytes);
      return;
    }
    const parts = this.parts;
    this.parts = [];
    this.size = 0;
    if (parts.length === 0) return;
    const line = parts.length === 1 ? this.utf8.decode(parts[0]) : this.utf8.decode(Buffer.concat(parts));
    if (line.trim().length > 0) this.onLine(line);
  }
}

/**
 * Batches writes made in the same tick into one: pipelined NDJSON traffic becomes one syscall per tick.
 */
export class BatchedWriter {
  private queue: string[] = [];
  private scheduled = false;

  constructor(private readonly sink: (chunk: string) => void) {}

  write(line: string): void {
    this.queue.push(line);
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => this.flush());
  }

  flush(): void {
    this.scheduled = false;
    if (this.queue.length === 0) return;
    const chunk = this.queue.length === 1 ? this.queue[0]! : this.queue.join("");
    this.queue = [];
    this.sink(chunk);
  }
}
