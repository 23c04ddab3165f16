import type { Logger } from "../core/logger.ts";
import { CHANNEL_LAST_ERROR_MAX_CHARS } from "./limits.ts";

/** A channel's most recent problem and when it happened (epoch ms). */
export interface LastErrorRecord {
  message: string;
  at: number;
}

/**
 * The last error of one channel process: what it warned or failed about last (a platform answering 409, 429, 500 or
 * garbage, a failed turn, a send given up), kept for `prx channel status` and /api/channels. `onChange` is called
 * with every new record.
 */
export class LastError {
  current: LastErrorRecord | null = null;

  constructor(
    private readonly onChange: (record: LastErrorRecord) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  record(message: string): void {
    const cut = message.length > CHANNEL_LAST_ERROR_MAX_CHARS ? `${message.slice(0, CHANNEL_LAST_ERROR_MAX_CHARS - 3)}...` : message;
    this.current = { message: cut, at: this.now() };
    this.onChange(this.current);
  }
}

/** `logger`, whose warnings and errors are also recorded as the channel's last error. */
export function recordingLogger(logger: Logger, last: LastError): Logger {
  return {
    ...logger,
    warn: (message, fields) => (logger.warn(message, fields), last.record(message)),
    error: (message, fields) => (logger.error(message, fields), last.record(message)),
    child: (scope) => recordingLogger(logger.child(scope), last),
  };
}
