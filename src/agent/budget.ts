import type { BudgetConfig, BudgetLimits } from "../config/schema.ts";
import { PrxError } from "../core/errors.ts";
import type { UsageScope, UsageStore } from "../storage/types.ts";

/** What budgets read: the kept totals (and, through the host's recorder, what is still to be written). */
type SpentReader = Pick<UsageStore, "spent">;
import { dayIn, monthStart, nextDayStart, nextMonthStart } from "./calendar.ts";

/** Who a turn's spending is counted for. */
export interface Spender {
  channel: string;
  /** "<channel>:<user id>", or null when the turn has no user id */
  sender: string | null;
  /** The agent of the turn: its usage is kept per agent too. */
  agent?: string;
}

interface Limit {
  scope: UsageScope;
  /** How the budget is named in the refusal and where it is configured. */
  name: string;
  table: string;
  period: "daily" | "monthly";
  usd: number;
}

/** "<channel>:<user id>" of a turn, or null. */
export function senderOf(channel: string, userId: string | null | undefined): string | null {
  return userId ? `${channel}:${userId}` : null;
}

/** The limits that apply to a spender: everything, its channel's, its sender's (each daily and monthly when set). */
export function limitsFor(budget: BudgetConfig, spender: Spender): Limit[] {
  const limits: Limit[] = [];
  const add = (scope: UsageScope, name: string, table: string, set: BudgetLimits | undefined) => {
    if (set?.daily_usd !== undefined) limits.push({ scope, name, table, period: "daily", usd: set.daily_usd });
    if (set?.monthly_usd !== undefined) limits.push({ scope, name, table, period: "monthly", usd: set.monthly_usd });
  };
  add({ kind: "all", key: "" }, "", "[budget]", budget);
  add({ kind: "channel", key: spender.channel }, ` of channel "${spender.channel}"`, `[budget.channels.${spender.channel}]`, budget.channels[spender.channel]);
  if (spender.sender !== null) {
    add({ kind: "sender", key: spender.sender }, ` of sender "${spender.sender}"`, `[budget.senders."${spender.sender}"]`, budget.senders[spender.sender]);
  }
  return limits;
}

/**
 * Refuses a model call once a budget is spent: with `spent >= limit` for the day or the calendar month (in the
 * budget's time zone) of any limit that applies, BUDGET_EXCEEDED names the budget and when it resets. Costs are
 * counted after each call, so the call that crosses a limit completes and the next is refused. With no limit set
 * nothing is read; otherwise one read of the kept totals.
 */
export function checkBudget(budget: BudgetConfig, usage: SpentReader, spender: Spender, now: number): Promise<void> | undefined {
  const limits = limitsFor(budget, spender);
  return limits.length === 0 ? undefined : refuseSpent(budget, limits, usage, now);
}

async function refuseSpent(budget: BudgetConfig, limits: Limit[], usage: SpentReader, now: number): Promise<void> {
  const zone = budget.time_zone;
  const today = dayIn(zone, now);
  const scopes = uniqueScopes(limits);
  const needMonth = limits.some((limit) => limit.period === "monthly");
  const rows = await usage.spent(scopes, needMonth ? monthStart(today) : today, today);
  for (const limit of limits) {
    let spent = 0;
    for (const row of rows) {
      if (row.kind !== limit.scope.kind || row.key !== limit.scope.key) continue;
      if (limit.period === "monthly" || row.day === today) spent += row.cost_usd;
    }
    if (spent < limit.usd) continue;
    const resets = limit.period === "daily" ? nextDayStart(zone, now) : nextMonthStart(zone, now);
    const resetsAt = new Date(resets).toISOString();
    const key = `${limit.period}_usd`;
    throw new PrxError(
      "BUDGET_EXCEEDED",
      `the ${limit.period} budget${limit.name} of $${limit.usd} is spent ($${spent.toFixed(4)}); it resets at ${resetsAt} (${zone} midnight)`,
      {
        status: 429,
        hint: `wait until it resets, or raise ${key} in ${limit.table} of config.toml`,
        details: { budget: limit.table, period: limit.period, limit_usd: limit.usd, spent_usd: spent, resets_at: resetsAt },
      },
    );
  }
}

function uniqueScopes(limits: readonly Limit[]): UsageScope[] {
  const seen = new Map<string, UsageScope>();
  for (const { scope } of limits) seen.set(`${scope.kind}:${scope.key}`, scope);
  return [...seen.values()];
}
