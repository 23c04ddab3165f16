import { appendFileSync, existsSync, renameSync, statSync } from "node:fs";
import { open, rename, stat, type FileHandle } from "node:fs/promises";
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
 * in-memory buffer; an asynchronous flush (one at a time) appends it to the file and rotates at the cap. What is
 * pending when the process exits is written then, synchronously. If the file cannot be written, that is said once
 * on stderr and file logging stops (stderr logging goes on).
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
  private handle: FileHandle | null = null;
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
    if (text.length === 0) return;
    const bytes = Buffer.byteLength(text);
    if (this.failed || this.pendingBytes + bytes > this.bufferMaxBytes) {
      const lines = Math.max(1, text.split("\n").length - 1);
      this.dropped += lines;
      this.droppedSinceReport += lines;
      return;
    }
    this.pending.push(text);
    this.pendingBytes += bytes;
    this.flushing ??= this.drain();
  }

  /** Resolves once everything written so far is in the file. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** Flush, close the file and stop watching for process exit. */
  async close(): Promise<void> {
    await this.flush();
    process.off("exit", this.onExit);
    await this.handle?.close();
    this.handle = null;
  }

  private async drain(): Promise<void> {
    // Let the caller's turn finish first: the disk is touched only off its path.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.pending.length > 0) {
        const batch = this.takeBatch();
        await this.append(batch);
      }
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
  private async append(pieces: string[]): Promise<void> {
    if (this.size < 0) this.size = (await sizeOf(this.path)) ?? 0;
    let chunk = "";
    let chunkBytes = 0;
    for (const piece of pieces) {
      const bytes = Buffer.byteLength(piece);
      if (this.size + chunkBytes + bytes > this.maxBytes && this.size + chunkBytes > 0) {
        if (chunk) await this.writeToFile(chunk, chunkBytes);
        chunk = "";
        chunkBytes = 0;
        await this.rotate();
      }
      chunk += piece;
      chunkBytes += bytes;
    }
    if (chunk) await this.writeToFile(chunk, chunkBytes);
  }

  private async writeToFile(text: string, bytes: number): Promise<void> {
    this.handle ??= await open(this.path, "a", 0o600);
    await this.handle.write(text);
    this.size += bytes;
  }

  /** prx.log.(N-1) -> prx.log.N (replacing it), ..., prx.log -> prx.log.1; the next write starts a new file. */
  private async rotate(): Promise<void> {
    await this.handle?.close();
    this.handle = null;
    for (let i = this.keep - 1; i >= 1; i--) {
      if ((await sizeOf(`${this.path}.${i}`)) !== null) await rename(`${this.path}.${i}`, `${this.path}.${i + 1}`);
    }
    await rename(this.path, `${this.path}.1`);
    this.size = 0;
  }

  /** At process exit: what is still pending goes to the file at once (rotating once if it must). */
  private flushSync(): void {
    if (this.failed || this.pending.length === 0) return;
    const text = this.takeBatch().join("");
    try {
      const size = existsSync(this.path) ? statSync(this.path).size : 0;
      if (size > 0 && size + Buffer.byteLength(text) > this.maxBytes) {
        for (let i = this.keep - 1; i >= 1; i--) {
          if (existsSync(`${this.path}.${i}`)) renameSync(`${this.path}.${i}`, `${this.path}.${i + 1}`);
        }
        renameSync(this.path, `${this.path}.1`);
      }
      appendFileSync(this.path, text, { mode: 0o600 });
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

/** A file's size, or null when it does not exist (any other failure is thrown). */
async function sizeOf(path: string): Promise<number | null> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}
