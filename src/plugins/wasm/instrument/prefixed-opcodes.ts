import { skipMemarg, unknownOpcode } from "./immediates.ts";
import { type Instruction, Kind } from "./instruction.ts";
import type { ByteReader } from "./leb128.ts";

/** The prefixed opcode spaces: 0xFC misc, 0xFE threads, 0xFD SIMD, 0xFB GC (their sub-opcode is a u32). */

/** 0xFC prefix: saturating truncation, bulk memory, table operations, wide arithmetic. */
export function readMisc(r: ByteReader, at: number): void {
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
  unknownOpcode(r, at, `0xfc ${sub}`);
}

/** 0xFE prefix: threads (atomic memory accesses, wait/notify, fence). */
export function readAtomic(r: ByteReader, at: number): void {
  const sub = r.u32();
  if (sub === 3) {
    if (r.u8() !== 0) r.fail("atomic.fence takes a zero byte", r.pos - 1);
    return;
  }
  if (sub <= 2 || (sub >= 0x10 && sub <= 0x4e)) return skipMemarg(r);
  unknownOpcode(r, at, `0xfe ${sub}`);
}

/** SIMD opcodes without an assigned instruction in 0x00-0x113. */
const SIMD_HOLES = new Set([0x9a, 0xa2, 0xa5, 0xa6, 0xaf, 0xb0, 0xb2, 0xb3, 0xb4, 0xbb, 0xc2, 0xc5, 0xc6, 0xcf, 0xd0, 0xd2, 0xd3, 0xd4, 0xe2, 0xee]);

/** 0xFD prefix: SIMD and relaxed SIMD. */
export function readSimd(r: ByteReader, at: number): void {
  const sub = r.u32();
  if (sub <= 11 || sub === 92 || sub === 93) return skipMemarg(r); // loads, store, load*_zero
  if (sub === 12 || sub === 13) return r.skip(16); // v128.const, i8x16.shuffle
  if (sub >= 21 && sub <= 34) return r.skip(1); // extract/replace lane
  if (sub >= 84 && sub <= 91) {
    skipMemarg(r); // load/store lane
    return r.skip(1);
  }
  if (sub <= 0x113 && !SIMD_HOLES.has(sub)) return;
  unknownOpcode(r, at, `0xfd ${sub}`);
}

/** 0xFB prefix: GC (structs, arrays, casts, i31, extern conversion). */
export function readGc(r: ByteReader, ins: Instruction, at: number): void {
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
  unknownOpcode(r, at, `0xfb ${sub}`);
}
