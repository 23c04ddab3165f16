import { HOST_CALL_REFUSAL_LOG_INTERVAL_MS } from "./limits.ts";
import { unrefTimeout, type Schedule } from "./pacer.ts";

/**
 * What the log shows of one plugin's refused calls: the first refusal of an interval with its reason, and when the
 * interval ends, how many more there were. At most two lines per interval, whatever the plugin does.
 */
export class RefusalLog {
  private windowStart = Number.NEGATIVE_INFINITY;
  private more = 0;
  private cancel: (() => void) | null = null;

  constructor(
    private readonly write: (line: string) => void,
    private readonly intervalMs = HOST_CALL_REFUSAL_LOG_INTERVAL_MS,
    private readonly now: () => number = () => performance.now(),
    private readonly schedule: Schedule = unrefTimeout,
  ) {}

  note(reason: string): void {
    const t = this.now();
    if (t - this.windowStart >= this.intervalMs) {
      this.flush();
      this.windowStart = t;
      this.write(`refused a host call: ${reason}`);
      return;
    }
    this.more += 1;
    this.cancel ??= this.schedule(() => this.flush(), this.windowStart + this.intervalMs - t);
  }

  /** Write the count of refusals not logged yet (also when the plugin stops). */
  flush(): void {
    this.cancel?.();
    this.cancel = null;
    if (this.more > 0) this.write(`refused ${this.more} more host calls in the last ${this.intervalMs} ms`);
    this.more = 0;
  }
}
