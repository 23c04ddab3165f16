import type { ByteReader } from "./leb128.ts";

/** Immediates several instructions share: value types, block types, memory arguments; and the unknown-opcode error. */

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
export function skipBlockType(r: ByteReader): void {
  const b = r.bytes[r.pos];
  if (b === 0x40) r.pos++;
  else if (b !== undefined && (b & 0xc0) === 0x40) skipValType(r);
  else if (r.s33() < 0) r.fail("negative block type index");
}

export function skipMemarg(r: ByteReader): void {
  const align = r.u32();
  if (align & 0x40) r.u32(); // multi-memory: a memory index follows
  r.skipLeb(10); // offset: u64 for memory64
}

export function unknownOpcode(r: ByteReader, at: number, opcode: string): never {
  r.fail(`unknown instruction opcode ${opcode}`, at);
}
