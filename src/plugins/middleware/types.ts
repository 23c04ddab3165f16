import type { Stage } from "../../contracts/envelopes.ts";

/** One middleware capability of one plugin, as a generation's adapter exposes it to the chain. */
export interface MiddlewareEntry {
  plugin: string;
  /** Capability name inside the plugin. */
  name: string;
  /** Lower runs first; ties are ordered by plugin name, then capability name. */
  priority: number;
  /** Stages the capability declared (`stages = [...]` in its manifest); "all" when it declared none. */
  stages: readonly Stage[] | "all";
  /** Per-entry timeout in ms; defaults to the chain's (MIDDLEWARE_TIMEOUT_MS unless overridden). */
  timeoutMs?: number;
  /**
   * Receives the stage's envelope as JSON and returns the (possibly changed) envelope as JSON, bare or as
   * `{"action":"continue","data":"<JSON>"}`, or `{"action":"block","reason":"..."}` (also as a rejection's message).
   */
  process(stage: Stage, dataJson: string): Promise<string>;
  /** Told the outcome of every call of this entry (its status counters). Errors it throws are isolated. */
  report?(entry: MiddlewareEntry, outcome: MiddlewareOutcome): void;
}

export const MiddlewareFailureKinds = ["invalid_json", "invalid_envelope", "error", "timeout"] as const;
export type MiddlewareFailureKind = (typeof MiddlewareFailureKinds)[number];

export interface MiddlewareOutcome {
  stage: Stage;
  /** False when the call failed (and was isolated); a block is ok. */
  ok: boolean;
  durationMs: number;
  /** Set when ok is false. */
  failure?: MiddlewareFailureKind;
  error?: string;
  /** Set when the middleware blocked the turn: the reason (bounded) the user gets as the reply. */
  block?: string;
}

/** Receives the outcome of every middleware call of a chain (a probe's step list). Its errors are isolated. */
export interface MiddlewareStatusSink {
  onResult(entry: MiddlewareEntry, outcome: MiddlewareOutcome): void;
}
