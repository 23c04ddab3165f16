import { REMOTE_STDERR_MAX_LINE_CHARS, REMOTE_STDERR_TAIL_LINES } from "../../limits.ts";

const NL = 10;

/**
 * The last lines of a byte stream (a plugin subprocess's stderr, kept for crash reports). Each chunk is read from its
 * end and only the lines that can still be in the tail are decoded, so a flood costs O(tail) per chunk whatever its
 * line count. Lines are cut at `maxChars` bytes; blank lines are skipped.
 */
export class TailLines {
  private tail: string[] = [];
  /** Start of the current unfinished line (at most maxChars bytes of it). */
  private partial: Uint8Array[] = [];
  private partialBytes = 0;
  private partialCut = false;
  private readonly utf8 = new TextDecoder();
  /** Bytes seen, for diagnostics. */
  bytes = 0;

  constructor(
    private readonly maxLines = REMOTE_STDERR_TAIL_LINES,
    private readonly maxChars = REMOTE_STDERR_MAX_LINE_CHARS,
  ) {}

  push(chunk: Uint8Array): void {
    this.bytes += chunk.length;
    const last = chunk.lastIndexOf(NL);
    if (last === -1) return this.keepPartial(chunk, 0, chunk.length);
    const found: string[] = [];
    let end = last;
    // at most 4x the tail in steps, so a chunk of blank lines cannot make this a walk over the whole chunk
    for (let steps = 0; found.length < this.maxLines && steps < this.maxLines * 4; steps++) {
      const prev = end === 0 ? -1 : chunk.lastIndexOf(NL, end - 1);
      if (prev === -1) {
        this.keepPartial(chunk, 0, end);
        this.addLine(found, this.takePartial());
        break;
      }
      this.addLine(found, this.cut(chunk, prev + 1, end));
      end = prev;
    }
    this.partial = [];
    this.partialBytes = 0;
    this.partialCut = false;
    this.keepPartial(chunk, last + 1, chunk.length);
    this.tail = [...this.tail, ...found.reverse()].slice(-this.maxLines);
  }

  lines(): string[] {
    return [...this.tail];
  }

  private addLine(found: string[], line: string): void {
    if (line.trim().length > 0) found.push(line);
  }

  private cut(chunk: Uint8Array, start: number, end: number): string {
    const text = this.utf8.decode(chunk.subarray(start, Math.min(end, start + this.maxChars)));
    return end - start > this.maxChars ? `${text}...` : text;
  }

  private keepPartial(chunk: Uint8Array, start: number, end: number): void {
    const room = this.maxChars - this.partialBytes;
    if (end - start > room) this.partialCut = true;
    const stop = Math.min(end, start + Math.max(0, room));
    if (stop > start) {
      this.partial.push(chunk.slice(start, stop));
      this.partialBytes += stop - start;
    }
  }

  private takePartial(): string {
    const text = this.utf8.decode(Buffer.concat(this.partial));
    const line = this.partialCut ? `${text}...` : text;
    this.partial = [];
    this.partialBytes = 0;
    this.partialCut = false;
    return line;
  }
}
