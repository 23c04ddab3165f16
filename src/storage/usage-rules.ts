import type { MessageUsage, UsageCharge, UsageRow, UsageTotals } from "./types.ts";

/** One row of kept totals to add: its kind ("all", "channel", "sender", "model", "session"), key and day. */
export interface UsageDelta {
  kind: string;
  key: string;
  day: string;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  cost_usd: number;
  calls: number;
}

export const ZERO_TOTALS: UsageTotals = { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, cost_usd: 0, calls: 0 };

/** The kept-total rows an append adds to, one per (kind, key): an upsert never meets the same row twice. */
export function usageDeltas(sessionId: string | null, messages: ReadonlyArray<{ usage?: MessageUsage }>, charge: UsageCharge | undefined): UsageDelta[] {
  if (!charge) return [];
  const rows = new Map<string, UsageDelta>();
  const add = (kind: string, key: string, usage: MessageUsage) => {
    const id = `${kind}\u0000${key}`;
    let row = rows.get(id);
    if (!row) rows.set(id, (row = { kind, key, day: charge.day, ...ZERO_TOTALS }));
    row.input_tokens += usage.input_tokens;
    row.output_tokens += usage.output_tokens;
    row.cached_input_tokens += usage.cached_input_tokens;
    row.cost_usd += usage.cost_usd ?? 0;
    row.calls += 1;
  };
  for (const { usage } of messages) {
    if (!usage) continue;
    add("all", "", usage);
    add("channel", charge.channel, usage);
    if (charge.sender !== null) add("sender", charge.sender, usage);
    add("model", `${usage.provider}/${usage.model}`, usage);
    if (sessionId !== null) add("session", sessionId, usage);
  }
  return [...rows.values()];
}

/** The kind of kept rows a usage group reads: a day's totals are the "all" rows keyed by day. */
export function groupKind(group: "day" | "session" | "model" | "channel"): string {
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
