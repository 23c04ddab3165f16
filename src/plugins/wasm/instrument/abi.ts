/**
 * What an instrumented core module imports from the sandbox (see FUEL.md in this folder). The names live here, apart
 * from the rewriter, because the sandbox Worker imports them and nothing else of it.
 */

/** Import module of the two added imports. A guest module importing from it itself fails the load. */
export const INTERRUPT_IMPORT_MODULE = "prx_interrupt";
/** `(func)`: called when the fuel global is below zero; refills it or throws. */
export const INTERRUPT_CHECK_FIELD = "check";
/** `(global (mut i64))`: fuel left in the current chunk, shared by every core module of one instance. */
export const INTERRUPT_FUEL_FIELD = "fuel";
/**
 * Bump when the instrumentation's output changes (the rewritten bytes are cached on disk under it).
 * 1: fuel segments, checks at function entries and loop headers.
 * 2: fuel cached in a local between calls; "interrupt" metering counts loop iterations in a local.
 */
export const INSTRUMENT_VERSION = 2;
