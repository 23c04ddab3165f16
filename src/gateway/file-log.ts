import { join } from "node:path";
import { LOG_FILE_NAME, RotatingLogFile } from "../core/log-file.ts";
import { createBufferedSink, getLogSink, setLogSink } from "../core/logger.ts";
import { writeStderrLines } from "../core/stderr.ts";
import { lineAccessLog, type AccessLog } from "./access-log.ts";

export interface GatewayFileLog {
  file: RotatingLogFile;
  /** The access log for startGateway: stderr and the file, buffered for LOG_FLUSH_INTERVAL_MS and written together. */
  accessLog: AccessLog;
  /** Restore the previous log sink, write what is pending and close the file. */
  close(): Promise<void>;
}

/**
 * A running gateway keeps `logs/prx.log` (rotated at LOG_FILE_MAX_BYTES to prx.log.1 .. LOG_FILE_KEEP): the same
 * lines it writes to stderr, log records (at the PRX_LOG level) and one access-log line per request.
 */
export function openGatewayFileLog(logsDir: string): GatewayFileLog {
  const file = new RotatingLogFile(join(logsDir, LOG_FILE_NAME));
  const previous = getLogSink();
  setLogSink((line) => {
    previous(line);
    file.write(line + "\n");
  });
  const sink = createBufferedSink((text) => {
    writeStderrLines(text);
    // the sink writes LOG_FLUSH_INTERVAL_MS after a request's line (or at once past LOG_BUFFER_MAX_BYTES, stderr
    // included): the file need not wait again
    file.writeNow(text);
  });
  return {
    file,
    accessLog: lineAccessLog(sink),
    async close() {
      sink.flush();
      setLogSink(previous);
      await file.close();
    },
  };
}
