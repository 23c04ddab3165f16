import { createLogger } from "../core/logger.ts";
import { errorMessage } from "../core/errors.ts";
import { addUsageDeltas } from "../storage/usage-rules.ts";
import type { MessageUsage, UsageCharge, UsageDelta, UsageGroup, UsageRow, UsageScope, UsageStore, UsageTotals } from "../storage/types.ts";

/** How long counted usage waits before it is added to the kept totals, in one transaction with whatever came meanwhile. */
export const USAGE_FLUSH_MS = 100;
/** Pending rows (kind, key and day) that make a flush start at once. */
export const USAGE_PENDING_MAX_ROWS = 512;

const log = createLogger("usage");

/**
 * The host's one writer of kept usage totals. Turns count their model calls here; the counts are added to the store
 * every USAGE_FLUSH_MS in one transaction of aggregated rows (a busy gateway's turns share each row), not one
 * transaction per turn. Budget reads add what is still pending, so this process never spends past a limit by the
 * delay; other replicas see it within USAGE_FLUSH_MS. Reports flush first. A failed flush keeps its rows for the next.
 */
export class UsageRecorder {
  private pending = new Map<string, UsageDelta>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private flushing: Promise<void> | undefined;

  private made: UsageStore | undefined;
  /** `storeOf` makes the usage store, on the first use of this recorder (a host opens without loading it). */
  constructor(
    private readonly storeOf: () => UsageStore,
    private readonly flushMs = USAGE_FLUSH_MS,
  ) {}

  private get store(): UsageStore {
    return (this.made ??= this.storeOf());
  }

  /** Count model calls of a turn (session null: a turn that stores no messages). */
  count(sessionId: string | null, usages: readonly MessageUsage[], charge: UsageCharge): void {
    if (usages.length === 0) return;
    addUsageDeltas(this.pending, sessionId, usages, charge);
    if (this.pending.size >= USAGE_PENDING_MAX_ROWS) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.flushMs);
  }

  /** Add what is pending to the store now. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return this.flushing ?? Promise.resolve();
    const rows = this.pending;
    this.pending = new Map();
    const previous = this.flushing ?? Promise.resolve();
    const run = previous.then(() => this.store.add([...rows.values()])).then(
      () => undefined,
      (error: unknown) => {
        log.error("usage totals not written; kept for the next flush", { rows: rows.size, error: errorMessage(error) });
        for (const row of rows.values()) this.requeue(row);
        this.timer ??= setTimeout(() => void this.flush(), this.flushMs);
      },
    );
    this.flushing = run;
    void run.finally(() => {
      if (this.flushing === run) this.flushing = undefined;
    });
    return run;
  }

  /** Cost per scope and day as budgets read it: the store's, plus what this process has not written yet. */
  async spent(scopes: readonly UsageScope[], fromDay: string, toDay: string): Promise<Array<UsageScope & { day: string; cost_usd: number }>> {
    const kept = await this.store.spent(scopes, fromDay, toDay);
    if (this.pending.size === 0) return kept;
    const extra: Array<UsageScope & { day: string; cost_usd: number }> = [];
    for (const row of this.pending.values()) {
      if (row.day < fromDay || row.day > toDay) continue;
      const scope = scopes.find((s) => s.kind === row.kind && s.key === row.key);
      if (scope) extra.push({ ...scope, day: row.day, cost_usd: row.cost_usd });
    }
    return [...kept, ...extra];
  }

  async totals(group: UsageGroup, sinceDay: string): Promise<UsageRow[]> {
    await this.flush();
    return this.store.totals(group, sinceDay);
  }

  async session(id: string): Promise<UsageTotals> {
    await this.flush();
    return this.store.session(id);
  }

  /** Write what is pending and stop the timer (the host closes it before its storage). */
  close(): Promise<void> {
    return this.flush();
  }

  private requeue(row: UsageDelta): void {
    const id = `${row.kind}\u0000${row.key}\u0000${row.day}`;
    const held = this.pending.get(id);
    if (!held) {
      this.pending.set(id, row);
      return;
    }
    held.input_tokens += row.input_tokens;
    held.output_tokens += row.output_tokens;
    held.cached_input_tokens += row.cached_input_tokens;
    held.cost_usd += row.cost_usd;
    held.calls += row.calls;
  }
}
