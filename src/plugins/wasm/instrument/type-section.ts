import { skipValType } from "./instructions.ts";
import type { ByteReader } from "./leb128.ts";

/** The type section, read for one thing: each type's parameter count (a function's added local comes after them). */

const FUNC_TYPE = 0x60;
const STRUCT_TYPE = 0x5f;
const ARRAY_TYPE = 0x5e;
const SUB = 0x50;
const SUB_FINAL = 0x4f;
const REC = 0x4e;

/** Skip a composite type; a function type's parameter count, -1 for a struct or array type. */
function skipCompositeType(r: ByteReader): number {
  const form = r.u8();
  if (form === FUNC_TYPE) {
    const params = r.u32();
    for (let i = 0; i < params; i++) skipValType(r);
    const results = r.u32();
    for (let i = 0; i < results; i++) skipValType(r);
    return params;
  }
  if (form === STRUCT_TYPE) {
    const n = r.u32();
    for (let i = 0; i < n; i++) {
      skipValType(r); // storage type: a value type or i8 (0x78) / i16 (0x77)
      r.u8(); // mutability
    }
  } else if (form === ARRAY_TYPE) {
    skipValType(r);
    r.u8();
  } else r.fail(`unknown type form 0x${form.toString(16)}`, r.pos - 1);
  return -1;
}

function skipSubType(r: ByteReader): number {
  const b = r.bytes[r.pos];
  if (b === SUB || b === SUB_FINAL) {
    r.pos++;
    const supers = r.u32();
    for (let i = 0; i < supers; i++) r.u32();
  }
  return skipCompositeType(r);
}

/** Parameter count of every type index (-1 for struct and array types), rec groups included. */
export function typeParams(content: ByteReader | null): number[] {
  const params: number[] = [];
  if (!content) return params;
  const entries = content.u32();
  for (let i = 0; i < entries; i++) {
    if (content.bytes[content.pos] === REC) {
      content.pos++;
      const n = content.u32();
      for (let j = 0; j < n; j++) params.push(skipSubType(content));
    } else params.push(skipSubType(content));
  }
  if (!content.atEnd()) content.fail("bytes after the type section's entries");
  return params;
}

/** Parameter count of each defined function, from the function section's type indices. */
export function functionParams(r: ByteReader | null, types: number[]): number[] {
  if (!r) return [];
  const n = r.u32();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const at = r.pos;
    const params = types[r.u32()];
    if (params === undefined || params < 0) return r.fail("a function's type is not a function type", at);
    out.push(params);
  }
  if (!r.atEnd()) r.fail("bytes after the function section's entries");
  return out;
}
