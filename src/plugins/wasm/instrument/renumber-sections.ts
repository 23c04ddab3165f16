import { copyConstExpr } from "./const-expr.ts";
import type { Layout } from "./plan.ts";
import { skipValType } from "./instructions.ts";
import { type ByteReader, ByteWriter } from "./leb128.ts";

/**
 * The sections outside function bodies that name globals by index, rewritten for the imported fuel global
 * (defined globals move up one): exports, and the constant expressions of globals, tables, element segments
 * (expression form and offsets) and data segment offsets. Function and memory indices never change.
 */

const global = (map: Layout, index: number) => (index >= map.importedGlobals ? index + 1 : index);

const EXPORT_GLOBAL = 3;

export function renumberExports(r: ByteReader, map: Layout): Uint8Array {
  const out = new ByteWriter(r.end - r.pos + 16);
  const n = r.u32();
  out.u32(n);
  for (let i = 0; i < n; i++) {
    const nameStart = r.pos;
    r.skipName();
    out.bytes(r.bytes.subarray(nameStart, r.pos));
    const kind = r.u8();
    const index = r.u32();
    out.u8(kind);
    out.u32(kind === EXPORT_GLOBAL ? global(map, index) : index);
  }
  return finish(r, out, "export");
}

/** Element segments: flags 0-7 (active/passive/declarative, function indices or expressions, explicit table). */
export function renumberElements(r: ByteReader, map: Layout): Uint8Array {
  const out = new ByteWriter(r.end - r.pos + 64);
  const n = r.u32();
  out.u32(n);
  for (let i = 0; i < n; i++) {
    const flags = r.u32();
    if (flags > 7) r.fail(`unknown element segment flags ${flags}`);
    out.u32(flags);
    const passiveOrDeclarative = (flags & 0x01) !== 0;
    const explicitTable = (flags & 0x02) !== 0;
    const expressions = (flags & 0x04) !== 0;
    if (!passiveOrDeclarative && explicitTable) out.u32(r.u32()); // table index
    if (!passiveOrDeclarative) copyConstExpr(r, out, map); // offset
    if (passiveOrDeclarative || explicitTable) {
      // element kind (0x00 = funcref) for index lists, a reference type for expressions
      const typeStart = r.pos;
      if (expressions) skipValType(r);
      else r.u8();
      out.bytes(r.bytes.subarray(typeStart, r.pos));
    }
    const count = r.u32();
    out.u32(count);
    for (let j = 0; j < count; j++) {
      if (expressions) copyConstExpr(r, out, map);
      else out.u32(r.u32());
    }
  }
  return finish(r, out, "element");
}

export function renumberGlobals(r: ByteReader, map: Layout): Uint8Array {
  const out = new ByteWriter(r.end - r.pos + 16);
  const n = r.u32();
  out.u32(n);
  for (let i = 0; i < n; i++) {
    const typeStart = r.pos;
    skipValType(r);
    r.u8(); // mutability
    out.bytes(r.bytes.subarray(typeStart, r.pos));
    copyConstExpr(r, out, map);
  }
  return finish(r, out, "global");
}

/** Tables: `reftype limits`, or `0x40 0x00 reftype limits expr` (a table with an initializer). */
export function renumberTables(r: ByteReader, map: Layout): Uint8Array {
  const out = new ByteWriter(r.end - r.pos + 16);
  const n = r.u32();
  out.u32(n);
  for (let i = 0; i < n; i++) {
    const start = r.pos;
    const withInit = r.bytes[r.pos] === 0x40;
    if (withInit) {
      r.u8();
      if (r.u8() !== 0x00) r.fail("table initializer prefix must be 0x40 0x00", r.pos - 1);
    }
    skipValType(r);
    const flags = r.u8();
    if (flags > 0x07) r.fail(`unknown limits flags 0x${flags.toString(16)}`, r.pos - 1);
    r.skipLeb(10);
    if (flags & 0x01) r.skipLeb(10);
    out.bytes(r.bytes.subarray(start, r.pos));
    if (withInit) copyConstExpr(r, out, map);
  }
  return finish(r, out, "table");
}

/** Data segments: 0 active (memory 0), 1 passive, 2 active with a memory index. */
export function renumberData(r: ByteReader, map: Layout): Uint8Array {
  const out = new ByteWriter(r.end - r.pos + 16);
  const n = r.u32();
  out.u32(n);
  for (let i = 0; i < n; i++) {
    const flags = r.u32();
    if (flags > 2) r.fail(`unknown data segment flags ${flags}`);
    out.u32(flags);
    if (flags === 2) out.u32(r.u32());
    if (flags !== 1) copyConstExpr(r, out, map);
    const len = r.u32();
    const start = r.pos;
    r.skip(len);
    out.u32(len);
    out.bytes(r.bytes.subarray(start, r.pos));
  }
  return finish(r, out, "data");
}

function finish(r: ByteReader, out: ByteWriter, section: string): Uint8Array {
  if (!r.atEnd()) r.fail(`bytes after the ${section} section's entries`);
  return out.view().slice();
}
