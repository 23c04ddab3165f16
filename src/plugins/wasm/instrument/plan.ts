/** What the instrumentation pass changes in a module, shared by its files (the design: FUEL.md in this folder). */

/** Where the added imports are, and the index shift they cause. */
export interface Layout {
  /** Global imports before the added fuel global: defined global indices at or above it move up one ("full"). */
  importedGlobals: number;
  /** Index of the added fuel global, -1 without one ("interrupt"). */
  fuelGlobal: number;
  /** Index of the added interrupt flag memory (after the module's memories, which keep their indices). */
  flagMemory: number;
}

/**
 * "full": exact fuel for plugins with max_fuel (every straight-line segment charges its instructions) and the
 * interrupt checks; "interrupt": only the interrupt checks (every plugin without max_fuel).
 */
export type Metering = "full" | "interrupt";

/** The kinds of code the pass inserts at segment starts (body-emitter.ts writes them). */
export const Insert = {
  /** Function entry: take fuel into the frame (charging the first segment); checks when the function calls. */
  entry: 0,
  /** Loop header: charge the loop body's first segment; checks. */
  loop: 1,
  /** Any other segment: charge it ("full" only). */
  segment: 2,
} as const;
export type Insert = (typeof Insert)[keyof typeof Insert];

/**
 * How one function keeps its fuel: "local" caches the fuel global in an added i64 local (stored back before calls,
 * throws and exits, reloaded after calls) so charges stay in registers; "global" charges the global itself (a
 * function with exception handlers, where a caught exception would find the local stale); "none" ("interrupt"
 * metering) keeps no fuel.
 */
export type FrameMode = "local" | "global" | "none";

/** Edits of one function body; each list is in increasing offset order. */
export interface BodyEdits {
  mode: FrameMode;
  /** Index of the added i64 fuel local ("local" mode), -1 when none was added. */
  local: number;
  /** Index of the added i32 local alternating the flag's address in loops that call nothing ("none"), or -1. */
  tickLocal: number;
  /** Code at segment starts: input offset, kind, fuel cost, whether the checks follow. */
  chargeAt: number[];
  chargeKind: Insert[];
  chargeCost: number[];
  chargeCheck: boolean[];
  /** A loop header check in a loop that calls nothing: it reads the flag at an address that changes each time. */
  chargeAlternate: boolean[];
  /** "none" mode: reset the tick local before the `loop` instruction at these offsets (its loops that call nothing). */
  tickResetAt: number[];
  /** "local" mode: store the local into the global before the instruction at these offsets (calls, throws, exits). */
  storeAt: number[];
  /** "local" mode: reload the local from the global at these offsets (right after a call). */
  reloadAt: number[];
  /** Global index immediates to rewrite: byte range and new value. */
  fixStart: number[];
  fixEnd: number[];
  fixValue: number[];
}
