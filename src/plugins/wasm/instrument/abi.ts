/**
 * What an instrumented core module imports from the sandbox (FUEL.md in this folder). These names live apart from
 * the rewriter because the sandbox Worker needs them and nothing else of it.
 */

/** Import module of every added import. A guest module importing from it itself fails the load. */
export const INTERRUPT_IMPORT_MODULE = "prx_interrupt";
/** `(memory 1 1 shared)`: a plugin sandbox's interrupt flag, an i32 at INTERRUPT_FLAG_OFFSET, raised by the host. */
export const INTERRUPT_FLAG_FIELD = "interrupt";
/** Byte offset of the flag in its memory. */
export const INTERRUPT_FLAG_OFFSET = 0;
/**
 * The flag is two i32 words, both raised: a check inside a loop that calls nothing reads the word at offset 0 or 4,
 * alternating, so that its address changes every iteration and no compiler can hoist the read out of the loop.
 */
export const INTERRUPT_FLAG_WORDS = 2;
/** `(global (mut i64))`: fuel left in the current call, shared by every core module of one instance ("full"). */
export const INTERRUPT_FUEL_FIELD = "fuel";
/**
 * Bump when the instrumentation's output changes (the rewritten bytes are cached on disk under it).
 * 1: fuel segments, a host check call at function entries and loop headers.
 * 2: fuel cached in a local between calls; loop iterations counted in a local.
 * 3: no check call: checks read the interrupt flag from a shared memory and trap; fuel traps below zero; loops
 *    that call nothing read the flag at an alternating address.
 */
export const INSTRUMENT_VERSION = 3;

/** A memory the module defined, imported instead so the interrupt flag can follow it without renumbering. */
export interface MovedMemory {
  initial: number;
  maximum: number | null;
  shared: boolean;
}

const MEMORY_FIELD = /^memory:(\d+):(\d+|-):(shared|private)$/;

/** The import field of a moved memory: it carries the memory's type, so the host can create it. */
export function movedMemoryField(memory: MovedMemory): string {
  return `memory:${memory.initial}:${memory.maximum ?? "-"}:${memory.shared ? "shared" : "private"}`;
}

/** The memory type a moved memory's import field describes, or null when the field is not one. */
export function parseMovedMemoryField(field: string): MovedMemory | null {
  const m = MEMORY_FIELD.exec(field);
  if (!m) return null;
  return { initial: Number(m[1]), maximum: m[2] === "-" ? null : Number(m[2]), shared: m[3] === "shared" };
}
