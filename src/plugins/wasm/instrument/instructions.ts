import { skipBlockType, skipMemarg, skipValType, unknownOpcode } from "./immediates.ts";
import { type Instruction, Kind } from "./instruction.ts";
import type { ByteReader } from "./leb128.ts";
import { readAtomic, readGc, readMisc, readSimd } from "./prefixed-opcodes.ts";

export { type Instruction, Kind, newInstruction } from "./instruction.ts";
export { skipValType };

/**
 * Decoder of one instruction of a function body or constant expression: the opcode and every immediate, for the
 * whole instruction set JavaScriptCore or the toolchains prx meets may produce — MVP, sign extension, saturating
 * truncation and bulk memory (0xFC), reference types, multi-value, SIMD and relaxed SIMD (0xFD), threads (0xFE),
 * exception handling (legacy try/catch/delegate/rethrow and try_table/throw_ref), tail calls, typed function
 * references and GC (0xFB), multi-memory and memory64 memargs. Anything else fails the caller's load naming the
 * opcode and its offset: the rewriter never guesses an instruction's length.
 */

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
  unknownOpcode(r, at, `0x${op.toString(16).padStart(2, "0")}`);
}
