import type { ByteReader } from "./leb128.ts";

/**
 * Decoder of one instruction of a function body or constant expression: the opcode and every immediate, for the
 * whole instruction set JavaScriptCore or the toolchains prx meets may produce — MVP, sign extension, saturating
 * truncation and bulk memory (0xFC), reference types, multi-value, SIMD and relaxed SIMD (0xFD), threads (0xFE),
 * exception handling (legacy try/catch/delegate/rethrow and try_table/throw_ref), tail calls, typed function
 * references and GC (0xFB), multi-memory and memory64 memargs. Anything else fails the caller's load naming the
 * opcode and its offset: the rewriter never guesses an instruction's length.
 */

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

/** Reference-type codes that take a heap type after them (ref null ht, ref ht). */
const REF_NULLABLE = 0x63;
const REF = 0x64;

/** A value type: one byte, or ref/ref null followed by a heap type. */
export function skipValType(r: ByteReader): void {
  const b = r.u8();
  if (b === REF_NULLABLE || b === REF) r.s33();
  else if (b < 0x69 || b > 0x7f) r.fail(`unknown value type 0x${b.toString(16)}`, r.pos - 1);
}

/** A block type: empty (0x40), a value type, or a type index (s33). */
function skipBlockType(r: ByteReader): void {
  const b = r.bytes[r.pos];
  if (b === 0x40) r.pos++;
  else if (b !== undefined && (b & 0xc0) === 0x40) skipValType(r);
  else if (r.s33() < 0) r.fail("negative block type index");
}

function skipMemarg(r: ByteReader): void {
  const align = r.u32();
  if (align & 0x40) r.u32(); // multi-memory: a memory index follows
  r.skipLeb(10); // offset: u64 for memory64
}

function unknown(r: ByteReader, at: number, opcode: string): never {
  r.fail(`unknown instruction opcode ${opcode}`, at);
}

/** Read the instruction at r.pos into `ins` and advance past it. */
export function readInstruction(r: ByteReader, ins: Instruction): void {
  const at = r.pos;
  const op = r.u8();
  ins.at = at;
  ins.kind = Kind.plain;
  ins.cost = 1;
  if (op >= 0x45 && op <= 0xc4) return; // numeric instructions, no immediates
  switch (op) {
    case 0x00: // unreachable
    case 0x0f: // return
      ins.kind = Kind.exit;
      ins.cost = 0;
      return;
    case 0x01: // nop
    case 0x1a: // drop
      ins.cost = 0;
      return;
    case 0x02: // block
    case 0x06: // try (legacy)
      skipBlockType(r);
      ins.kind = Kind.block;
      ins.cost = 0;
      return;
    case 0x03:
      skipBlockType(r);
      ins.kind = Kind.loop;
      ins.cost = 0;
      return;
    case 0x04:
      skipBlockType(r);
      ins.kind = Kind.if;
      return;
    case 0x05:
      ins.kind = Kind.else;
      ins.cost = 0;
      return;
    case 0x07: // catch tag (legacy)
      r.u32();
      ins.kind = Kind.catch;
      ins.cost = 0;
      return;
    case 0x19: // catch_all (legacy)
      ins.kind = Kind.catch;
      ins.cost = 0;
      return;
    case 0x08: // throw tag
    case 0x09: // rethrow label (legacy)
      r.u32();
      ins.kind = Kind.exit;
      return;
    case 0x0a: // throw_ref
      ins.kind = Kind.exit;
      return;
    case 0x0b:
      ins.kind = Kind.end;
      ins.cost = 0;
      return;
    case 0x0c:
      ins.label = r.u32();
      ins.kind = Kind.br;
      return;
    case 0x0d: // br_if
    case 0xd5: // br_on_null
    case 0xd6: // br_on_non_null
      ins.label = r.u32();
      ins.kind = Kind.brIf;
      return;
    case 0x0e: {
      const n = r.u32();
      ins.labels.length = 0;
      for (let i = 0; i <= n; i++) ins.labels.push(r.u32());
      ins.kind = Kind.brTable;
      return;
    }
    case 0x10: // call
    case 0x12: // return_call
    case 0xd2: // ref.func
      ins.indexStart = r.pos;
      ins.index = r.u32();
      ins.indexEnd = r.pos;
      ins.kind = op === 0x10 ? Kind.call : op === 0x12 ? Kind.returnCall : Kind.refFunc;
      return;
    case 0x23: // global.get
    case 0x24: // global.set
      ins.indexStart = r.pos;
      ins.index = r.u32();
      ins.indexEnd = r.pos;
      ins.kind = Kind.global;
      return;
    case 0x11: // call_indirect type table
      r.u32();
      r.u32();
      return;
    case 0x13: // return_call_indirect
      r.u32();
      r.u32();
      ins.kind = Kind.exit;
      return;
    case 0x14: // call_ref type
      r.u32();
      return;
    case 0x15: // return_call_ref type
      r.u32();
      ins.kind = Kind.exit;
      return;
    case 0x18: // delegate label (legacy)
      ins.label = r.u32();
      ins.kind = Kind.delegate;
      ins.cost = 0;
      return;
    case 0x1b: // select
    case 0xd1: // ref.is_null
    case 0xd3: // ref.eq
    case 0xd4: // ref.as_non_null
      return;
    case 0x1c: {
      // select with types
      const n = r.u32();
      for (let i = 0; i < n; i++) skipValType(r);
      return;
    }
    case 0x1f: {
      // try_table blocktype vec(catch)
      skipBlockType(r);
      const n = r.u32();
      ins.labels.length = 0;
      for (let i = 0; i < n; i++) {
        const clause = r.u8();
        if (clause === 0x00 || clause === 0x01) r.u32(); // catch / catch_ref tag
        else if (clause !== 0x02 && clause !== 0x03) r.fail(`unknown try_table catch clause 0x${clause.toString(16)}`, r.pos - 1);
        ins.labels.push(r.u32());
      }
      ins.kind = Kind.block;
      ins.cost = 0;
      return;
    }
    case 0x20: // local.get/set/tee
    case 0x21:
    case 0x22:
    case 0x25: // table.get/set
    case 0x26:
    case 0x3f: // memory.size/grow memidx
    case 0x40:
      r.u32();
      return;
    case 0x41:
      r.skipLeb(5);
      return;
    case 0x42:
      r.skipLeb(10);
      return;
    case 0x43:
      r.skip(4);
      return;
    case 0x44:
      r.skip(8);
      return;
    case 0xd0: // ref.null heaptype
      r.s33();
      return;
    case 0xfb:
      return readGc(r, ins, at);
    case 0xfc:
      return readMisc(r, at);
    case 0xfd:
      return readSimd(r, at);
    case 0xfe:
      return readAtomic(r, at);
  }
  if (op >= 0x28 && op <= 0x3e) return skipMemarg(r);
  unknown(r, at, `0x${op.toString(16).padStart(2, "0")}`);
}

/** 0xFC prefix: saturating truncation, bulk memory, table operations, wide arithmetic. */
function readMisc(r: ByteReader, at: number): void {
  const sub = r.u32();
  if (sub <= 7 || (sub >= 19 && sub <= 22)) return;
  switch (sub) {
    case 8: // memory.init data mem
    case 10: // memory.copy mem mem
    case 12: // table.init elem table
    case 14: // table.copy table table
      r.u32();
      r.u32();
      return;
    case 9: // data.drop
    case 11: // memory.fill mem
    case 13: // elem.drop
    case 15: // table.grow
    case 16: // table.size
    case 17: // table.fill
      r.u32();
      return;
  }
  unknown(r, at, `0xfc ${sub}`);
}

/** 0xFE prefix: threads (atomic memory accesses, wait/notify, fence). */
function readAtomic(r: ByteReader, at: number): void {
  const sub = r.u32();
  if (sub === 3) {
    if (r.u8() !== 0) r.fail("atomic.fence takes a zero byte", r.pos - 1);
    return;
  }
  if (sub <= 2 || (sub >= 0x10 && sub <= 0x4e)) return skipMemarg(r);
  unknown(r, at, `0xfe ${sub}`);
}

/** SIMD opcodes without an assigned instruction in 0x00-0x113. */
const SIMD_HOLES = new Set([0x9a, 0xa2, 0xa5, 0xa6, 0xaf, 0xb0, 0xb2, 0xb3, 0xb4, 0xbb, 0xc2, 0xc5, 0xc6, 0xcf, 0xd0, 0xd2, 0xd3, 0xd4, 0xe2, 0xee]);

/** 0xFD prefix: SIMD and relaxed SIMD. */
function readSimd(r: ByteReader, at: number): void {
  const sub = r.u32();
  if (sub <= 11 || sub === 92 || sub === 93) return skipMemarg(r); // loads, store, load*_zero
  if (sub === 12 || sub === 13) return r.skip(16); // v128.const, i8x16.shuffle
  if (sub >= 21 && sub <= 34) return r.skip(1); // extract/replace lane
  if (sub >= 84 && sub <= 91) {
    skipMemarg(r); // load/store lane
    return r.skip(1);
  }
  if (sub <= 0x113 && !SIMD_HOLES.has(sub)) return;
  unknown(r, at, `0xfd ${sub}`);
}

/** 0xFB prefix: GC (structs, arrays, casts, i31, extern conversion). */
function readGc(r: ByteReader, ins: Instruction, at: number): void {
  const sub = r.u32();
  switch (sub) {
    case 2: // struct.get type field
    case 3:
    case 4:
    case 5: // struct.set
    case 8: // array.new_fixed type n
    case 9: // array.new_data type data
    case 10: // array.new_elem type elem
    case 17: // array.copy type type
    case 18: // array.init_data type data
    case 19: // array.init_elem type elem
      r.u32();
      r.u32();
      return;
    case 0: // struct.new type
    case 1:
    case 6: // array.new type
    case 7:
    case 11: // array.get type
    case 12:
    case 13:
    case 14: // array.set
    case 16: // array.fill
      r.u32();
      return;
    case 15: // array.len
    case 26: // any.convert_extern
    case 27: // extern.convert_any
    case 28: // ref.i31
    case 29:
    case 30:
      return;
    case 20: // ref.test, ref.test null, ref.cast, ref.cast null: heap type
    case 21:
    case 22:
    case 23:
      r.s33();
      return;
    case 24: // br_on_cast flags label ht ht
    case 25:
      r.u8();
      ins.label = r.u32();
      r.s33();
      r.s33();
      ins.kind = Kind.brIf;
      return;
  }
  unknown(r, at, `0xfb ${sub}`);
}
