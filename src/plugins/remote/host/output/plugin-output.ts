import type { Logger } from "../../../../core/logger.ts";
import { REMOTE_PLUGIN_LOG_MAX_CHARS } from "../../limits.ts";
import { HOST_LOG_LIMITS, OutputBudget, type BudgetLimits } from "../../output-budget.ts";
import type { RefusedDetail, RefusedKind } from "../../types.ts";
import { clipLogText, safeJson } from "../../worker-runtime/runtime-logger.ts";

type LogLevel = "debug" | "info" | "warn" | "error";

const detailText = (detail: RefusedDetail) => (typeof detail === "string" ? detail : detail());

/**
 * What the host's log shows of one plugin: its `log` messages within HOST_LOG_LIMITS (the rest dropped and
 * counted), and refused input, where the first refusal of an interval is logged with its detail and the rest of the
 * interval become one summary line. Every refusal is counted by the caller; nothing here writes more than a few
 * lines per interval, whatever the plugin sends.
 */
export class PluginOutputLog {
  private readonly logs: OutputBudget;
  private readonly refusals: OutputBudget;
  private readonly pending: Record<RefusedKind, number> = { malformed: 0, oversize: 0 };
  private lastDetail: RefusedDetail = "";
  /** The last refusal as status shows it (made when logged, not per refused line). */
  lastRefusal: string | null = null;

  constructor(
    private readonly log: Logger,
    limits: BudgetLimits = HOST_LOG_LIMITS,
    now?: () => number,
  ) {
    this.logs = new OutputBudget(
      limits,
      (dropped) =>
        log.warn(
          `${dropped} log lines of the remote plugin dropped: over ${limits.lines} lines or ${limits.bytes} bytes ` +
            `in ${limits.intervalMs} ms`,
        ),
      now,
    );
    const oncePerInterval = { lines: 1, bytes: Number.POSITIVE_INFINITY, intervalMs: limits.intervalMs };
    this.refusals = new OutputBudget(oncePerInterval, () => this.summarize(limits.intervalMs), now);
  }

  /** Log lines the host dropped since the start. */
  get droppedLogLines(): number {
    return this.logs.droppedTotal;
  }

  /**
   * `count` refused messages in a row (`total` so far): the first is logged with its detail when it is the first of
   * an interval, the rest are summarized when the interval ends.
   */
  refused(kind: RefusedKind, detail: RefusedDetail, total: number, count = 1): void {
    let rest = count;
    if (this.refusals.take()) {
      const text = detailText(detail);
      this.lastRefusal = `refused ${kind} message from plugin: ${text}`;
      this.log.error(`refused ${kind} message from remote plugin`, { detail: text, count: total - count + 1 });
      rest -= 1;
      if (rest === 0) return;
      // the rest of the run is past this interval's one line: take() counts it and schedules the summary
      this.refusals.take();
    }
    this.pending[kind] += rest;
    this.lastDetail = detail;
  }

  /** A `log` message of the plugin (runtime.logger), cut to REMOTE_PLUGIN_LOG_MAX_CHARS. */
  line(level: LogLevel, message: string, fields?: Record<string, unknown>): void {
    if (!this.logs.take()) return;
    const text = clipLogText(message);
    let extra = fields;
    if (fields) {
      const json = safeJson(fields);
      if (json.length > REMOTE_PLUGIN_LOG_MAX_CHARS) extra = { truncated: clipLogText(json) };
    }
    // the message is what the worker runtime charges too (fields are cut to the same size)
    this.logs.charge(text.length);
    this.log[level](text, extra);
  }

  /** Write pending summaries now (the plugin stopped). */
  flush(): void {
    this.refusals.flush();
    this.logs.flush();
  }

  private summarize(intervalMs: number): void {
    const { malformed, oversize } = this.pending;
    this.pending.malformed = this.pending.oversize = 0;
    if (malformed + oversize === 0) return;
    const last = detailText(this.lastDetail);
    const counts = `${malformed} malformed, ${oversize} oversize`;
    this.lastRefusal = `refused ${malformed + oversize} more messages from plugin (${counts}); last: ${last}`;
    this.log.error(`refused ${malformed + oversize} more messages from remote plugin in the last ${intervalMs} ms`, {
      malformed,
      oversize,
      last,
    });
  }
}
