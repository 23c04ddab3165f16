import type { Logger } from "../../core/logger.ts";
import { EVENT_WARN_INTERVAL_MS } from "./limits.ts";

/** Logs at most one warning per key and interval; suppressed ones are counted into the next warning. */
export class RateLimitedWarner {
  private readonly last = new Map<string, { at: number; suppressed: number }>();

  constructor(
    private readonly logger: Logger,
    private readonly intervalMs = EVENT_WARN_INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  warn(key: string, message: string, fields: Record<string, unknown> = {}): void {
    const t = this.now();
    const entry = this.last.get(key);
    if (entry && t - entry.at < this.intervalMs) {
      entry.suppressed++;
      return;
    }
    const suppressed = entry?.suppressed ?? 0;
    this.last.set(key, { at: t, suppressed: 0 });
    this.logger.warn(message, suppressed > 0 ? { ...fields, suppressed_since_last_warning: suppressed } : fields);
  }

  forget(key: string): void {
    this.last.delete(key);
  }
}
