/**
 * Minimal leveled logger writing one line per record to stderr (stdout belongs to command output
 * and, for plugin children, to the protocol). Level comes from PRX_LOG (trace|debug|info|warn|error|silent).
 */
export const LogLevels = ["trace", "debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LogLevels)[number];
type Threshold = LogLevel | "silent";

const rank: Record<Threshold, number> = { trace: 0, debug: 1, info: 2, warn: 3, error: 4, silent: 5 };

function initialThreshold(): Threshold {
  const fromEnv = process.env.PRX_LOG as Threshold | undefined;
  return fromEnv && fromEnv in rank ? fromEnv : "warn";
}

let threshold: Threshold = initialThreshold();
let sink: (line: string) => void = (line) => process.stderr.write(line + "\n");

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

export interface Logger {
  trace(message: string, fields?: Record<string, unknown>): void;
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(scope: string): Logger;
}

function format(level: LogLevel, scope: string, message: string, fields?: Record<string, unknown>): string {
  const time = new Date().toISOString();
  const extra = fields && Object.keys(fields).length > 0 ? " " + JSON.stringify(fields) : "";
  return `${time} ${level.toUpperCase().padEnd(5)} [${scope}] ${message}${extra}`;
}

export function createLogger(scope: string): Logger {
  const at = (level: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (rank[level] < rank[threshold]) return;
    sink(format(level, scope, message, fields));
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
