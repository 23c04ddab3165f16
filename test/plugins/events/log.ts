import type { Logger } from "../../../src/core/logger.ts";

/** A Logger that records records in memory instead of writing to stderr. */
export interface CapturedLogger extends Logger {
  records: { level: string; message: string; fields?: Record<string, unknown> }[];
}

export function captureLogger(): CapturedLogger {
  const records: CapturedLogger["records"] = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    records.push({ level, message, fields });
  };
  const logger: CapturedLogger = {
    records,
    trace: at("trace"),
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    child: () => logger,
  };
  return logger;
}
