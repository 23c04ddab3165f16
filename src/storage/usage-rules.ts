import type { MessageUsage, UsageCharge, UsageDelta, UsageRow, UsageTotals } from "./types.ts";

export const ZERO_TOTALS: UsageTotals = { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, cost_usd: 0, calls: 0 };

/**
 * Adds the usage of model calls to the kept-total rows in `rows` (keyed by kind, key and day, so an upsert of them
 * never meets the same row twice): everything, the channel, the sender, the model and the session.
 */
export function addUsageDeltas(
  rows: Map<string, UsageDelta>,
  sessionId: string | null,
  usages: readonly MessageUsage[],
  charge: UsageCharge,
): void {
  const add = (kind: string, key: string, usage: MessageUsage) => {
    const id = `${kind}\u0000${key}\u0000${charge.day}`;
    let row = rows.get(id);
    if (!row) rows.set(id, (row = { kind, key, day: charge.day, ...ZERO_TOTALS }));
    row.input_tokens += usage.input_tokens;
    row.output_tokens += usage.output_tokens;
    row.cached_input_tokens += usage.cached_input_tokens;
    row.cost_usd += usage.cost_usd ?? 0;
    row.calls += 1;
  };
  for (const usage of usages) {
    add("all", "", usage);
    add("channel", charge.channel, usage);
    if (charge.sender !== null) add("sender", charge.sender, usage);
    if (charge.agent !== undefined) add("agent", charge.agent, usage);
    add("model", `${usage.provider}/${usage.model}`, usage);
    if (sessionId !== null) add("session", sessionId, usage);
  }
}

/** The rows of one batch of usage (see addUsageDeltas). */
export function usageDeltas(sessionId: string | null, usages: readonly MessageUsage[], charge: UsageCharge): UsageDelta[] {
  const rows = new Map<string, UsageDelta>();
  addUsageDeltas(rows, sessionId, usages, charge);
  return [...rows.values()];
}

/** The kind of kept rows a usage group reads: a day's totals are the "all" rows keyed by day. */
export function groupKind(group: "day" | "session" | "model" | "channel" | "agent"): string {
  return group === "day" ? "all" : group;
}

/** A database row of totals (PostgreSQL returns bigint sums as strings) as numbers. */
export function toUsageRow(row: Record<string, unknown>): UsageRow {
  return {
    key: String(row.key),
    input_tokens: Number(row.input_tokens ?? 0),
    output_tokens: Number(row.output_tokens ?? 0),
    cached_input_tokens: Number(row.cached_input_tokens ?? 0),
    cost_usd: Number(row.cost_usd ?? 0),
    calls: Number(row.calls ?? 0),
  };
}
