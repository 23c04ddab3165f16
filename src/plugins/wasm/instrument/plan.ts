/** What the instrumentation pass changes in a module, shared by its files. */

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
 * "full": every straight-line segment charges its instructions (exact fuel, for plugins with max_fuel);
 * "interrupt": only function entries and loop headers charge, an upper bound of the work until the next check
 * (cheaper; enough to stop a runaway call within FUEL_CHUNK instructions).
 */
export type Metering = "full" | "interrupt";

/** Edits of one function body, in increasing offset order each. */
export interface BodyEdits {
  /** Charges to insert: input offset, cost, whether a check follows. */
  insAt: number[];
  insCost: number[];
  insCheck: boolean[];
  /** Index immediates to rewrite: byte range and new value. */
  fixStart: number[];
  fixEnd: number[];
  fixValue: number[];
}
