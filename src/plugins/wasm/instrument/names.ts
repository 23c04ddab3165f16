import { PrxError } from "../../../core/errors.ts";
import type { Layout } from "./plan.ts";
import { ByteReader, ByteWriter } from "./leb128.ts";

/**
 * The `name` custom section with global indices shifted like the code's (the imported fuel global moves defined
 * globals up one), so debuggers keep naming the guest's globals: subsection 7 is rewritten, the others (module,
 * functions, locals, labels, types, tables, memories, elements, data, fields, tags) are copied as they are —
 * their indices do not change.
 */

const GLOBAL_NAMES = 7;

/** The rewritten content (name included), or a reason to drop it: a malformed name section is not a load error. */
export function renumberNames(
  bytes: Uint8Array,
  start: number,
  end: number,
  map: Layout,
): { bytes: Uint8Array } | { dropped: string } {
  const r = new ByteReader(bytes, "name section", start, end);
  try {
    return { bytes: rewrite(r, map) };
  } catch (error) {
    if (error instanceof PrxError) return { dropped: error.message };
    throw error;
  }
}

function rewrite(r: ByteReader, map: Layout): Uint8Array {
  const out = new ByteWriter(r.end - r.pos + 64);
  const nameStart = r.pos;
  r.skipName();
  out.bytes(r.bytes.subarray(nameStart, r.pos));
  const global = (i: number) => (i >= map.importedGlobals ? i + 1 : i);
  while (!r.atEnd()) {
    const id = r.u8();
    const size = r.u32();
    const sub = new ByteReader(r.bytes, r.where, r.pos, r.pos + size);
    r.skip(size);
    const content = id === GLOBAL_NAMES ? nameMap(sub, global) : sub.bytes.subarray(sub.pos, sub.end);
    out.u8(id);
    out.u32(content.length);
    out.bytes(content);
  }
  return out.view().slice();
}

function nameMap(r: ByteReader, index: (i: number) => number): Uint8Array {
  const out = new ByteWriter(r.end - r.pos + 16);
  copyNameMap(r, out, index);
  if (!r.atEnd()) r.fail("bytes after a name map");
  return out.view().slice();
}

function copyNameMap(r: ByteReader, out: ByteWriter, index: (i: number) => number): void {
  const n = r.u32();
  out.u32(n);
  for (let i = 0; i < n; i++) {
    out.u32(index(r.u32()));
    const start = r.pos;
    r.skipName();
    out.bytes(r.bytes.subarray(start, r.pos));
  }
}
