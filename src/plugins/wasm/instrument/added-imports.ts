import { INTERRUPT_CHECK_FIELD, INTERRUPT_FUEL_FIELD, INTERRUPT_IMPORT_MODULE } from "./abi.ts";
import { skipValType } from "./instructions.ts";
import { ByteReader, ByteWriter } from "./leb128.ts";

/**
 * The two imports instrumentation adds after a module's own: `prx_interrupt.check` (a function of a new type
 * `() -> ()` appended to the type section) and `prx_interrupt.fuel` (a mutable i64 global). Appending keeps every
 * import's index; defined functions and globals move up one (function-body.ts renumbers their uses).
 */

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

/**
 * The type section with `() -> ()` appended, that type's index, and each type's parameter count (-1 for a struct
 * or array type; the pass needs it to number a function's added local). `content` is null when there is none.
 */
export function typeSectionWithCheck(content: ByteReader | null): {
  bytes: Uint8Array;
  checkType: number;
  params: number[];
} {
  const out = new ByteWriter((content ? content.end - content.pos : 0) + 16);
  let entries = 0;
  const params: number[] = [];
  let bodyStart = 0;
  if (content) {
    entries = content.u32();
    bodyStart = content.pos;
    for (let i = 0; i < entries; i++) {
      if (content.bytes[content.pos] === REC) {
        content.pos++;
        const n = content.u32();
        for (let j = 0; j < n; j++) params.push(skipSubType(content));
      } else params.push(skipSubType(content));
    }
    if (!content.atEnd()) content.fail("bytes after the type section's entries");
  }
  out.u32(entries + 1);
  if (content) out.bytes(content.bytes.subarray(bodyStart, content.end));
  out.u8(FUNC_TYPE);
  out.u8(0);
  out.u8(0);
  return { bytes: out.view().slice(), checkType: params.length, params };
}

export interface ImportCounts {
  functions: number;
  globals: number;
}

const IMPORT_FUNC = 0;
const IMPORT_TABLE = 1;
const IMPORT_MEMORY = 2;
const IMPORT_GLOBAL = 3;
const IMPORT_TAG = 4;

function skipLimits(r: ByteReader): void {
  const flags = r.u8();
  if (flags > 0x07) r.fail(`unknown limits flags 0x${flags.toString(16)}`, r.pos - 1);
  r.skipLeb(10);
  if (flags & 0x01) r.skipLeb(10);
}

/** Count imported functions and globals; an import from `prx_interrupt` fails the load (the name is reserved). */
export function countImports(content: ByteReader | null): ImportCounts {
  const counts = { functions: 0, globals: 0 };
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
    if (kind === IMPORT_FUNC) {
      content.u32();
      counts.functions++;
    } else if (kind === IMPORT_TABLE) {
      skipValType(content);
      skipLimits(content);
    } else if (kind === IMPORT_MEMORY) skipLimits(content);
    else if (kind === IMPORT_GLOBAL) {
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

/** The import section with `prx_interrupt.check` and `prx_interrupt.fuel` appended. */
export function importSectionWithInterrupt(content: ByteReader | null, checkType: number): Uint8Array {
  const out = new ByteWriter((content ? content.end - content.pos : 0) + 64);
  let n = 0;
  let bodyStart = 0;
  if (content) {
    n = content.u32();
    bodyStart = content.pos;
  }
  out.u32(n + 2);
  if (content) out.bytes(content.bytes.subarray(bodyStart, content.end));
  out.name(INTERRUPT_IMPORT_MODULE);
  out.name(INTERRUPT_CHECK_FIELD);
  out.u8(IMPORT_FUNC);
  out.u32(checkType);
  out.name(INTERRUPT_IMPORT_MODULE);
  out.name(INTERRUPT_FUEL_FIELD);
  out.u8(IMPORT_GLOBAL);
  out.u8(0x7e); // i64
  out.u8(0x01); // mutable
  return out.view().slice();
}

/** A reader over a section's content, or null. */
export function sectionReader(bytes: Uint8Array, where: string, section: { start: number; end: number } | undefined): ByteReader | null {
  return section ? new ByteReader(bytes, where, section.start, section.end) : null;
}
