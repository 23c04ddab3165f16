/** The decoded form of one instruction, as the instrumentation pass sees it (decoder: instructions.ts). */

/** What an instruction means for the instrumentation pass. */
export const Kind = {
  plain: 0,
  /** block, try, try_table: open a frame entered only by falling through. */
  block: 1,
  loop: 2,
  if: 3,
  else: 4,
  end: 5,
  /** br: jumps to `label`, the code after it is unreachable. */
  br: 6,
  /** br_if, br_on_null, br_on_non_null, br_on_cast, br_on_cast_fail: may jump to `label` or fall through. */
  brIf: 7,
  /** br_table: jumps to one of `labels`. */
  brTable: 8,
  /** return, unreachable, throw, rethrow, throw_ref, return_call_indirect, return_call_ref. */
  exit: 9,
  /** catch, catch_all (legacy exception handling): a handler's entry. */
  catch: 10,
  /** delegate (legacy): closes a try. */
  delegate: 11,
  /** call with a function index immediate. */
  call: 12,
  /** return_call with a function index immediate. */
  returnCall: 13,
  /** ref.func with a function index immediate. */
  refFunc: 14,
  /** global.get / global.set with a global index immediate. */
  global: 15,
} as const;
export type Kind = (typeof Kind)[keyof typeof Kind];

/** The decoded instruction; one object is reused for every instruction (the decoder is the hot loop of a load). */
export interface Instruction {
  kind: Kind;
  /** Fuel units it costs (FUEL.md): 1, or 0 for nop, drop and the structural markers. */
  cost: number;
  /** Offset of its first byte. */
  at: number;
  /** The index immediate of call, return_call, ref.func, global.get, global.set: value and byte range. */
  index: number;
  indexStart: number;
  indexEnd: number;
  /** Branch target of br, br_if and the br_on_* family, delegate's target. */
  label: number;
  /** br_table targets (default included), try_table catch targets. */
  labels: number[];
}

export function newInstruction(): Instruction {
  return { kind: Kind.plain, cost: 1, at: 0, index: 0, indexStart: 0, indexEnd: 0, label: 0, labels: [] };
}
