import { countImports, importSectionWithInterrupt, sectionReader, typeSectionWithCheck } from "./added-imports.ts";
import { instrumentBody } from "./function-body.ts";
import type { Metering, Renumbering } from "./plan.ts";
import { ByteReader, ByteWriter } from "./leb128.ts";
import { renumberNames } from "./names.ts";
import {
  renumberData,
  renumberElements,
  renumberExports,
  renumberGlobals,
  renumberStart,
  renumberTables,
} from "./renumber-sections.ts";
import { type Section, SectionId, readSections, sectionRank, writeSection } from "./sections.ts";

export interface InstrumentedModule {
  bytes: Uint8Array;
  /** Custom sections left out, with why (they describe code offsets that moved, or could not be read). */
  dropped: string[];
}

/** Custom sections that point into the code by byte offset: stale after the rewrite, so they are left out. */
function describesCodeOffsets(name: string): boolean {
  return name.startsWith(".debug_") || name.startsWith("metadata.code.") || name.startsWith("reloc.") || name === "linking";
}

/**
 * Rewrite a core module so a host can stop it and meter it (FUEL.md): import `prx_interrupt.check` and
 * `prx_interrupt.fuel`, charge fuel per straight-line segment ("full") or only at function entries and loop
 * headers ("interrupt"), call `check` there when the fuel global is below zero, and renumber every use of a
 * defined function or global index. Fails with PLUGIN_LOAD (naming `where`, the problem and its byte offset) on
 * anything it cannot decode; it never emits a module it did not fully understand.
 */
export function instrumentModule(bytes: Uint8Array, where: string, metering: Metering): InstrumentedModule {
  const sections = readSections(bytes, where);
  const find = (id: number) => sections.find((s) => s.id === id);
  const types = typeSectionWithCheck(sectionReader(bytes, where, find(SectionId.type)));
  const { bytes: typeBytes, checkType } = types;
  const importReader = () => sectionReader(bytes, where, find(SectionId.import));
  const counts = countImports(importReader());
  const importBytes = importSectionWithInterrupt(importReader(), checkType);
  const map: Renumbering = {
    importedFunctions: counts.functions,
    importedGlobals: counts.globals,
    checkFunction: counts.functions,
    fuelGlobal: counts.globals,
  };
  const dropped: string[] = [];
  const out = new ByteWriter(Math.ceil(bytes.length * 1.25) + 256);
  out.bytes(bytes.subarray(0, 8));
  const pending = new Map<number, Uint8Array>([
    [SectionId.type, typeBytes],
    [SectionId.import, importBytes],
  ]);
  const flushBefore = (rank: number) => {
    for (const [id, content] of pending) {
      if (sectionRank(id) >= rank) continue;
      writeSection(out, id, content);
      pending.delete(id);
    }
  };
  for (const section of sections) {
    if (section.id !== SectionId.custom) {
      flushBefore(sectionRank(section.id));
      const replacement = pending.get(section.id);
      if (replacement) {
        writeSection(out, section.id, replacement);
        pending.delete(section.id);
        continue;
      }
    }
    const content = rewriteSection(bytes, where, section, map, metering, dropped, () =>
      functionParams(sectionReader(bytes, where, find(SectionId.function)), types.params),
    );
    if (content) writeSection(out, section.id, content);
  }
  flushBefore(Number.POSITIVE_INFINITY);
  return { bytes: out.view().slice(), dropped };
}

function rewriteSection(
  bytes: Uint8Array,
  where: string,
  section: Section,
  map: Renumbering,
  metering: Metering,
  dropped: string[],
  params: () => number[],
): Uint8Array | null {
  const r = new ByteReader(bytes, where, section.start, section.end);
  switch (section.id) {
    case SectionId.custom: {
      const name = section.name!;
      if (name === "name") {
        const names = renumberNames(bytes, section.start, section.end, map);
        if ("bytes" in names) return names.bytes;
        dropped.push(`name (unreadable: ${names.dropped})`);
        return null;
      }
      if (describesCodeOffsets(name)) {
        dropped.push(`${name} (describes code offsets the instrumentation moved)`);
        return null;
      }
      return bytes.subarray(section.start, section.end);
    }
    case SectionId.table:
      return renumberTables(r, map);
    case SectionId.global:
      return renumberGlobals(r, map);
    case SectionId.export:
      return renumberExports(r, map);
    case SectionId.start:
      return renumberStart(r, map);
    case SectionId.element:
      return renumberElements(r, map);
    case SectionId.data:
      return renumberData(r, map);
    case SectionId.code:
      return instrumentCode(r, map, metering, params());
    default:
      return bytes.subarray(section.start, section.end);
  }
}

/** Parameter count of each defined function, from the function section's type indices. */
function functionParams(r: ByteReader | null, typeParams: number[]): number[] {
  if (!r) return [];
  const n = r.u32();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const at = r.pos;
    const params = typeParams[r.u32()];
    if (params === undefined || params < 0) return r.fail("a function's type is not a function type", at);
    out.push(params);
  }
  if (!r.atEnd()) r.fail("bytes after the function section's entries");
  return out;
}

function instrumentCode(r: ByteReader, map: Renumbering, metering: Metering, params: number[]): Uint8Array {
  const out = new ByteWriter(Math.ceil((r.end - r.pos) * 1.3) + 64);
  const n = r.u32();
  if (n !== params.length) r.fail(`${n} function bodies for ${params.length} declared functions`);
  out.u32(n);
  for (let i = 0; i < n; i++) {
    const size = r.u32();
    const body = new ByteReader(r.bytes, r.where, r.pos, r.pos + size);
    r.skip(size);
    instrumentBody(body, out, map, metering, params[i]!);
  }
  if (!r.atEnd()) r.fail("bytes after the code section's entries");
  return out.view();
}
