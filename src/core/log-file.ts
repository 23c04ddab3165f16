import { closeSync, existsSync, openSync, renameSync, statSync, writeSync } from "node:fs";
import { formatLogLine } from "./logger.ts";

/** The log file a gateway writes in the workspace's `logs/`. */
export const LOG_FILE_NAME = "prx.log";
/** A file is rotated before a write would take it past this size (a single line longer than it goes alone into one file). */
export const LOG_FILE_MAX_BYTES = 10 * 1024 * 1024;
/** Rotated files kept: prx.log.1 (newest) .. prx.log.N (oldest); the one past N is deleted. */
export const LOG_FILE_KEEP = 5;
/** Bytes waiting for the disk; past this a line is dropped (and counted, and reported in the file) instead of waiting. */
export const LOG_FILE_BUFFER_MAX_BYTES = 1024 * 1024;

export interface RotatingLogFileOptions {
  maxBytes?: number;
  keep?: number;
  bufferMaxBytes?: number;
}

/**
 * A size-capped, rotating log file whose writer never waits for the disk: `write` only appends to a bounded
 * in-memory buffer, written to the file (rotating at the cap) once the caller's turn of the event loop is over, in
 * one batch. What is pending when the process exits is written then. If the file cannot be written, that is said once
 * on stderr and file logging stops (stderr logging goes on). The batch is written with synchronous calls: Node's
 * asynchronous file API would start Bun's thread pool (two threads, ~1 MB of an idle gateway) for a few small
 * appends to the page cache.
 */
export class RotatingLogFile {
  readonly maxBytes: number;
  readonly keep: number;
  readonly bufferMaxBytes: number;
  /** Lines dropped because the buffer was full (or the file failed). */
  dropped = 0;
  private pending: string[] = [];
  private pendingBytes = 0;
  private droppedSinceReport = 0;
  private size = -1;
  private fd: number | null = null;
  private flushing: Promise<void> | null = null;
  private failed = false;
  private readonly onExit = () => this.flushSync();

  constructor(
    readonly path: string,
    options: RotatingLogFileOptions = {},
  ) {
    this.maxBytes = options.maxBytes ?? LOG_FILE_MAX_BYTES;
    this.keep = options.keep ?? LOG_FILE_KEEP;
    this.bufferMaxBytes = options.bufferMaxBytes ?? LOG_FILE_BUFFER_MAX_BYTES;
    if (!(this.keep >= 1)) throw new RangeError(`a rotating log keeps at least 1 old file, got ${this.keep}`);
    process.on("exit", this.onExit);
  }

  /** Queue whole lines (ending in "\n") for the file; never touches the disk on the caller's path. */
  write(text: string): void {
    if (this.queue(text)) this.flushing ??= this.drain();
  }

  /**
   * Append whole lines now, after what is pending: for a caller that already runs after the request's turn of the
   * event loop (a buffered sink's flush), which would otherwise wait one more turn for `write`'s batch.
   */
  writeNow(text: string): void {
    if (this.queue(text)) this.flushSync();
  }

  /** Add `text` to the pending lines, or drop and count it when the buffer is full (or the file failed). */
  private queue(text: string): boolean {
    if (text.length === 0) return false;
    const bytes = Buffer.byteLength(text);
    if (this.failed || this.pendingBytes + bytes > this.bufferMaxBytes) {
      const lines = Math.max(1, text.split("\n").length - 1);
      this.dropped += lines;
      this.droppedSinceReport += lines;
      return false;
    }
    this.pending.push(text);
    this.pendingBytes += bytes;
    return true;
  }

  /** Resolves once everything written so far is in the file. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** Flush, close the file and stop watching for process exit. */
  async close(): Promise<void> {
    await this.flush();
    process.off("exit", this.onExit);
    this.closeFile();
  }

  private async drain(): Promise<void> {
    // Let the caller's turn finish first: the disk is touched only off its path.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      if (this.pending.length > 0) this.append(this.takeBatch());
    } catch (error) {
      this.fail(error);
    } finally {
      this.flushing = null;
    }
  }

  /** The pending pieces as one batch, then a note when lines were dropped after them (the buffer was full). */
  private takeBatch(): string[] {
    const batch = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    if (this.droppedSinceReport > 0) {
      const note = `${this.droppedSinceReport} log lines were dropped: the log file could not keep up`;
      batch.push(formatLogLine("warn", "log", note) + "\n");
      this.droppedSinceReport = 0;
    }
    return batch;
  }

  /** Append pieces (each made of whole lines), rotating first whenever the next one would pass the cap. */
  private append(pieces: string[]): void {
    if (this.size < 0) this.size = existsSync(this.path) ? statSync(this.path).size : 0;
    let chunk = "";
    let chunkBytes = 0;
    for (const piece of pieces) {
      const bytes = Buffer.byteLength(piece);
      if (this.size + chunkBytes + bytes > this.maxBytes && this.size + chunkBytes > 0) {
        if (chunk) this.writeToFile(chunk, chunkBytes);
        chunk = "";
        chunkBytes = 0;
        this.rotate();
      }
      chunk += piece;
      chunkBytes += bytes;
    }
    if (chunk) this.writeToFile(chunk, chunkBytes);
  }

  private writeToFile(text: string, bytes: number): void {
    this.fd ??= openSync(this.path, "a", 0o600);
    writeSync(this.fd, text);
    this.size += bytes;
  }

  /** prx.log.(N-1) -> prx.log.N (replacing it), ..., prx.log -> prx.log.1; the next write starts a new file. */
  private rotate(): void {
    this.closeFile();
    for (let i = this.keep - 1; i >= 1; i--) {
      if (existsSync(`${this.path}.${i}`)) renameSync(`${this.path}.${i}`, `${this.path}.${i + 1}`);
    }
    renameSync(this.path, `${this.path}.1`);
    this.size = 0;
  }

  private closeFile(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /** What is still pending goes to the file at once (at process exit, and for writeNow). */
  private flushSync(): void {
    if (this.failed || this.pending.length === 0) return;
    try {
      this.append(this.takeBatch());
    } catch (error) {
      this.fail(error);
    }
  }

  private fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.dropped += this.pending.length;
    this.pending = [];
    this.pendingBytes = 0;
    process.stderr.write(`prx: cannot write ${this.path} (${(error as Error).message}); file logging stops, stderr goes on\n`);
  }
}
