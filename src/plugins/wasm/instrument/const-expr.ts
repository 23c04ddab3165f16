import type { Layout } from "./plan.ts";
import { type Instruction, Kind, newInstruction, readInstruction } from "./instructions.ts";
import type { ByteReader, ByteWriter } from "./leb128.ts";

const ins: Instruction = newInstruction();

/**
 * Copy a constant expression (global initializer, segment offset, element expression, table initializer) up to
 * and including its `end`, renumbering global.get indices the way function bodies are. Constant expressions run
 * once at instantiation and are not metered.
 */
export function copyConstExpr(r: ByteReader, out: ByteWriter, map: Layout): void {
  let copied = r.pos;
  for (;;) {
    if (r.atEnd()) r.fail("constant expression without `end`");
    readInstruction(r, ins);
    if (ins.kind === Kind.end) break;
    const shifted = ins.kind === Kind.global && ins.index >= map.importedGlobals;
    if (shifted) {
      out.bytes(r.bytes.subarray(copied, ins.indexStart));
      out.u32(ins.index + 1);
      copied = ins.indexEnd;
    } else if (ins.kind !== Kind.plain && ins.kind !== Kind.refFunc && ins.kind !== Kind.global) {
      r.fail("control instruction in a constant expression", ins.at);
    }
  }
  out.bytes(r.bytes.subarray(copied, r.pos));
}
