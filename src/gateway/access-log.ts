import { createBufferedSink, formatLogLine, getLogLevel, type BufferedSink, type Logger } from "../core/logger.ts";

/** One request as the access log records it. */
export interface AccessEntry {
  method: string;
  path: string;
  status: number;
  id: string;
  ms: number;
  client: string;
  /** Id of the bearer token the request authenticated with. */
  token?: string;
}

export type AccessLog = (entry: AccessEntry) => void;

export const ACCESS_LOG_SCOPE = "gateway.access";

function fieldsOf(entry: AccessEntry): Record<string, unknown> {
  const fields: Record<string, unknown> = { id: entry.id, ms: entry.ms, client: entry.client };
  if (entry.token !== undefined) fields.token = entry.token;
  return fields;
}

/** The access log as INFO lines of a logger (shown only when PRX_LOG allows info): what app.handle tests get. */
export function loggerAccessLog(logger: Logger): AccessLog {
  return (entry) => logger.info(`${entry.method} ${entry.path} ${entry.status}`, fieldsOf(entry));
}

/**
 * The running gateway's access log: one line per request, whatever PRX_LOG says (unless "silent"), in the
 * logger's line format. Lines go to `sink`, by default stderr through a buffer written once per event-loop turn.
 */
export function lineAccessLog(sink: BufferedSink | ((line: string) => void) = createBufferedSink()): AccessLog {
  return (entry) => {
    if (getLogLevel() === "silent") return;
    const at = Date.now();
    const line = () =>
      formatLogLine("info", ACCESS_LOG_SCOPE, `${entry.method} ${entry.path} ${entry.status}`, fieldsOf(entry), at);
    // The buffered sink formats the line when it writes, after the response has gone out.
    if ("flush" in sink) sink(line);
    else sink(line());
  };
}
