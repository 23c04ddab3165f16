/** What the instrumentation pass changes in a module, shared by its files (the design: FUEL.md in this folder). */

/** The index shifts caused by the two added imports, and where they are. */
export interface Renumbering {
  /** Function imports before the added `check`: defined function indices at or above it move up one. */
  importedFunctions: number;
  /** Global imports before the added fuel global: defined global indices at or above it move up one. */
  importedGlobals: number;
  /** Index of the added `check` import (= importedFunctions). */
  checkFunction: number;
  /** Index of the added fuel global import (= importedGlobals). */
  fuelGlobal: number;
}

/**
 * "full": exact fuel (plugins with max_fuel): every straight-line segment charges its instructions;
 * "interrupt": only what stopping a runaway call needs (every plugin without max_fuel): a countdown per loop
 * (INTERRUPT_INTERVAL iterations of one frame between checks) and one per entry of a function that calls.
 */
export type Metering = "full" | "interrupt";

/**
 * Loop iterations of one frame, and entries of calling functions, between two checks in "interrupt" metering. It
 * is compiled into the rewritten code (a change needs a new INSTRUMENT_VERSION): one check costs ~0.1-0.2 us, so
 * checking every 10 000 iterations costs nothing measurable, and 10 000 iterations of even a large loop body take
 * milliseconds.
 */
export const INTERRUPT_INTERVAL = 10_000;

/** The kinds of code the pass inserts (body-emitter.ts writes them). */
export const Insert = {
  /** Function entry: take fuel into the frame (charging the first segment), check when it is a calling function. */
  entry: 0,
  /** Loop header: charge the loop body's first segment and check. */
  loop: 1,
  /** Any other segment: charge it. */
  segment: 2,
} as const;
export type Insert = (typeof Insert)[keyof typeof Insert];

/**
 * How one function keeps its fuel: "local" caches the fuel global in an added i64 local (stored back before calls,
 * throws and exits, reloaded after calls) so charges stay in registers; "global" charges the global itself (a
 * function with exception handlers, where a caught exception would find the local stale); "interrupt" keeps an
 * added i32 loop counter (when it has loops) and charges the global at entry (when it calls).
 */
export type FrameMode = "local" | "global" | "interrupt";

/** Edits of one function body; each list is in increasing offset order. */
export interface BodyEdits {
  mode: FrameMode;
  /** Index of the added local (i64 fuel for "local", i32 loop counter for "interrupt"), -1 when none was added. */
  local: number;
  /** Charges at segment starts: input offset, kind, cost, whether a check follows. */
  chargeAt: number[];
  chargeKind: Insert[];
  chargeCost: number[];
  chargeCheck: boolean[];
  /** "local" mode: store the local into the global before the instruction at these offsets (calls, throws, exits). */
  storeAt: number[];
  /** "local" mode: reload the local from the global at these offsets (right after a call). */
  reloadAt: number[];
  /** Index immediates to rewrite: byte range and new value. */
  fixStart: number[];
  fixEnd: number[];
  fixValue: number[];
}
