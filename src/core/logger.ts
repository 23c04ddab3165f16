/**
 * Minimal leveled logger writing one line per record to stderr (stdout belongs to command output
 * and, for plugin children, to the protocol). Level comes from PRX_LOG (trace|debug|info|warn|error|silent).
 */
import { writeStderrLines } from "./stderr.ts";

export const LogLevels = ["trace", "debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LogLevels)[number];
type Threshold = LogLevel | "silent";

const rank: Record<Threshold, number> = { trace: 0, debug: 1, info: 2, warn: 3, error: 4, silent: 5 };

function initialThreshold(): Threshold {
  const fromEnv = process.env.PRX_LOG as Threshold | undefined;
  return fromEnv && fromEnv in rank ? fromEnv : "warn";
}

let threshold: Threshold = initialThreshold();
// console.error, not process.stderr: see core/stderr.ts
let sink: (line: string) => void = (line) => console.error(line);

export function setLogLevel(level: Threshold): void {
  threshold = level;
}

export function getLogLevel(): Threshold {
  return threshold;
}

/** Redirect log output (tests, and the chat UI which owns the terminal). */
export function setLogSink(next: (line: string) => void): void {
  sink = next;
}

/** The current sink, so a caller can add a destination to it (the gateway's log file) and restore it later. */
export function getLogSink(): (line: string) => void {
  return sink;
}

export interface Logger {
  trace(message: string, fields?: Record<string, unknown>): void;
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(scope: string): Logger;
}

/** One log line: `<ISO time> <LEVEL> [scope] message {fields as JSON}`; `at` (epoch ms) defaults to now. */
export function formatLogLine(
  level: LogLevel,
  scope: string,
  message: string,
  fields?: Record<string, unknown>,
  at?: number,
): string {
  const time = (at === undefined ? new Date() : new Date(at)).toISOString();
  const extra = fields && Object.keys(fields).length > 0 ? " " + JSON.stringify(fields) : "";
  return `${time} ${level.toUpperCase().padEnd(5)} [${scope}] ${message}${extra}`;
}

export function createLogger(scope: string): Logger {
  const at = (level: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (rank[level] < rank[threshold]) return;
    sink(formatLogLine(level, scope, message, fields));
  };
  return {
    trace: at("trace"),
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    child: (sub) => createLogger(`${scope}.${sub}`),
  };
}

/** Bytes a buffered sink holds before writing without waiting for its flush interval. */
export const LOG_BUFFER_MAX_BYTES = 64 * 1024;
/**
 * How long a buffered sink holds lines before writing them (as nginx's access_log `flush=`): a gateway answering a
 * turn every 20 ms makes one write per five turns instead of two system calls (stderr, the log file) per turn.
 */
export const LOG_FLUSH_INTERVAL_MS = 100;

export interface BufferedSink {
  /** A line, or a function making it: called when the buffer is written, off the caller's path. */
  (line: string | (() => string)): void;
  /** Write whatever is pending now. */
  flush(): void;
}

/** Runs `flush` later: by default after LOG_FLUSH_INTERVAL_MS, on a timer that does not keep the process alive. */
export type FlushScheduler = (flush: () => void) => void;

const afterFlushInterval: FlushScheduler = (flush) => {
  setTimeout(flush, LOG_FLUSH_INTERVAL_MS).unref();
};

const unflushed = new Set<BufferedSink>();
let exitHooked = false;

/**
 * A sink for hot paths (the gateway's access log): lines are joined and written once per LOG_FLUSH_INTERVAL_MS, or
 * at once past LOG_BUFFER_MAX_BYTES, so a busy server makes one write per batch instead of one per line. Whatever is
 * pending when the process exits is written then; an idle sink schedules nothing.
 */
export function createBufferedSink(
  write: (text: string) => void = writeStderrLines,
  schedule: FlushScheduler = afterFlushInterval,
): BufferedSink {
  let pending: Array<string | (() => string)> = [];
  let bytes = 0;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    unflushed.delete(sink);
    if (pending.length === 0) return;
    let text = "";
    for (const line of pending) text += (typeof line === "string" ? line : line()) + "\n";
    pending = [];
    bytes = 0;
    write(text);
  };
  const sink = ((line: string | (() => string)) => {
    pending.push(line);
    // A deferred line counts as a typical access-log line until it is made.
    bytes += typeof line === "string" ? line.length + 1 : 160;
    if (bytes >= LOG_BUFFER_MAX_BYTES) return flush();
    if (scheduled) return;
    scheduled = true;
    unflushed.add(sink);
    if (!exitHooked) {
      exitHooked = true;
      process.once("exit", () => {
        for (const s of [...unflushed]) s.flush();
      });
    }
    schedule(flush);
  }) as BufferedSink;
  sink.flush = flush;
  return sink;
}
