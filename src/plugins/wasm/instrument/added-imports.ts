import {
  INTERRUPT_FLAG_FIELD,
  INTERRUPT_FUEL_FIELD,
  INTERRUPT_IMPORT_MODULE,
  type MovedMemory,
  movedMemoryField,
} from "./abi.ts";
import { skipValType } from "./instructions.ts";
import { ByteReader, ByteWriter } from "./leb128.ts";

/**
 * The imports instrumentation appends after a module's own, all from `prx_interrupt`:
 * - each memory the module defines, moved into an import of the same type (the memory section goes away), so
 *   that the flag memory after them gets the next index and no memory index changes;
 * - the interrupt flag memory (`interrupt`, one shared page);
 * - with "full" metering, the fuel global (`fuel`, mutable i64): defined globals move up one.
 * No function is added: function indices never change.
 */

export interface ImportCounts {
  globals: number;
  memories: number;
}

const IMPORT_FUNC = 0;
const IMPORT_TABLE = 1;
const IMPORT_MEMORY = 2;
const IMPORT_GLOBAL = 3;
const IMPORT_TAG = 4;
const MEMORY_SHARED = 0x02;
const MEMORY_64 = 0x04;

function skipLimits(r: ByteReader): void {
  const flags = r.u8();
  if (flags > 0x07) r.fail(`unknown limits flags 0x${flags.toString(16)}`, r.pos - 1);
  r.skipLeb(10);
  if (flags & 0x01) r.skipLeb(10);
}

/** Count imported globals and memories; an import from `prx_interrupt` fails the load (the name is reserved). */
export function countImports(content: ByteReader | null): ImportCounts {
  const counts = { globals: 0, memories: 0 };
  if (!content) return counts;
  const n = content.u32();
  for (let i = 0; i < n; i++) {
    const at = content.pos;
    const module = content.name();
    content.skipName();
    if (module === INTERRUPT_IMPORT_MODULE) {
      content.fail(`imports from "${INTERRUPT_IMPORT_MODULE}", a module name prx reserves for instrumentation`, at);
    }
    const kind = content.u8();
    if (kind === IMPORT_FUNC) content.u32();
    else if (kind === IMPORT_TABLE) {
      skipValType(content);
      skipLimits(content);
    } else if (kind === IMPORT_MEMORY) {
      skipLimits(content);
      counts.memories++;
    } else if (kind === IMPORT_GLOBAL) {
      skipValType(content);
      content.u8();
      counts.globals++;
    } else if (kind === IMPORT_TAG) {
      content.u8();
      content.u32();
    } else content.fail(`unknown import kind ${kind}`, content.pos - 1);
  }
  if (!content.atEnd()) content.fail("bytes after the import section's entries");
  return counts;
}

/** The memory section's memories: their types and their encoded limits (copied into the imports). */
export function readMemories(content: ByteReader | null): { type: MovedMemory; limits: Uint8Array }[] {
  if (!content) return [];
  const n = content.u32();
  const out: { type: MovedMemory; limits: Uint8Array }[] = [];
  for (let i = 0; i < n; i++) {
    const start = content.pos;
    const flags = content.u8();
    if (flags & MEMORY_64) content.fail("64-bit memories are not supported", start);
    if (flags > 0x03) content.fail(`unknown memory limits flags 0x${flags.toString(16)}`, start);
    const initial = content.u32();
    const maximum = flags & 0x01 ? content.u32() : null;
    out.push({
      type: { initial, maximum, shared: (flags & MEMORY_SHARED) !== 0 },
      limits: content.bytes.subarray(start, content.pos),
    });
  }
  if (!content.atEnd()) content.fail("bytes after the memory section's entries");
  return out;
}

/** The import section with the moved memories, the flag memory and (with `fuel`) the fuel global appended. */
export function importSectionWithInterrupt(
  content: ByteReader | null,
  moved: { type: MovedMemory; limits: Uint8Array }[],
  fuel: boolean,
): Uint8Array {
  const out = new ByteWriter((content ? content.end - content.pos : 0) + 64 + 32 * moved.length);
  let n = 0;
  let bodyStart = 0;
  if (content) {
    n = content.u32();
    bodyStart = content.pos;
  }
  out.u32(n + moved.length + 1 + (fuel ? 1 : 0));
  if (content) out.bytes(content.bytes.subarray(bodyStart, content.end));
  for (const memory of moved) {
    out.name(INTERRUPT_IMPORT_MODULE);
    out.name(movedMemoryField(memory.type));
    out.u8(IMPORT_MEMORY);
    out.bytes(memory.limits);
  }
  out.name(INTERRUPT_IMPORT_MODULE);
  out.name(INTERRUPT_FLAG_FIELD);
  out.u8(IMPORT_MEMORY);
  out.u8(0x03); // shared, with a maximum
  out.u8(1);
  out.u8(1);
  if (fuel) {
    out.name(INTERRUPT_IMPORT_MODULE);
    out.name(INTERRUPT_FUEL_FIELD);
    out.u8(IMPORT_GLOBAL);
    out.u8(0x7e); // i64
    out.u8(0x01); // mutable
  }
  return out.view().slice();
}

/** A reader over a section's content, or null. */
export function sectionReader(
  bytes: Uint8Array,
  where: string,
  section: { start: number; end: number } | undefined,
): ByteReader | null {
  return section ? new ByteReader(bytes, where, section.start, section.end) : null;
}
