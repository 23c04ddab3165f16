/** A plugin's host-call budget (`[resources]` of its plugin.toml, defaults applied). */
export interface HostCallLimits {
  /** Calls admitted per second, on average. */
  perSecond: number;
  /** Calls admitted at once after a quiet while. */
  burst: number;
  /** Calls being served at once. */
  inFlight: number;
}

export type HostCallRefusalReason = "rate" | "in-flight";

/** Why a call was refused, said once per budget: the text is made when the budget is, not per refusal. */
export interface HostCallRefusal {
  readonly reason: HostCallRefusalReason;
  /** The limit that was reached (calls per second, or calls in flight). */
  readonly limit: number;
  /** What was reached and how to raise it, e.g. "plugin x is over its host-call rate ...; raise ...". */
  readonly message: string;
}

/** What status shows of a budget. */
export interface HostCallBudgetStatus {
  /** Calls refused since the plugin was loaded. */
  refused: number;
  /** When the last call was refused (epoch ms), null when none was. */
  lastRefusedAt: number | null;
  /** Calls being served now. */
  inFlight: number;
}
