import { countImports, importSectionWithInterrupt, readMemories, sectionReader } from "./added-imports.ts";
import { instrumentBody } from "./function-body.ts";
import { ByteReader, ByteWriter } from "./leb128.ts";
import { renumberNames } from "./names.ts";
import type { Layout, Metering } from "./plan.ts";
import { renumberData, renumberElements, renumberExports, renumberGlobals, renumberTables } from "./renumber-sections.ts";
import { type Section, SectionId, readSections, sectionRank, writeSection } from "./sections.ts";
import { functionParams, typeParams } from "./type-section.ts";

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
 * Rewrite a core module so the host can stop it, and meter it (FUEL.md in this folder): its memories become
 * imports followed by the interrupt flag memory, every loop header and the entry of every function that calls
 * trap when the flag is raised, and with "full" metering every straight-line segment charges its instructions to
 * an imported fuel global and those checks also trap when it is below zero. Fails with PLUGIN_LOAD (naming
 * `where`, the problem and its byte offset) on anything it cannot decode: it never emits a module it did not
 * fully understand.
 */
export function instrumentModule(bytes: Uint8Array, where: string, metering: Metering): InstrumentedModule {
  const sections = readSections(bytes, where);
  const find = (id: number) => sections.find((s) => s.id === id);
  const reader = (id: number) => sectionReader(bytes, where, find(id));
  const counts = countImports(reader(SectionId.import));
  const memories = readMemories(reader(SectionId.memory));
  const fuel = metering === "full";
  const map: Layout = {
    importedGlobals: counts.globals,
    fuelGlobal: fuel ? counts.globals : -1,
    flagMemory: counts.memories + memories.length,
  };
  const importBytes = importSectionWithInterrupt(reader(SectionId.import), memories, fuel);
  const params = functionParams(reader(SectionId.function), typeParams(reader(SectionId.type)));
  const dropped: string[] = [];
  const out = new ByteWriter(Math.ceil(bytes.length * 1.25) + 256);
  out.bytes(bytes.subarray(0, 8));
  let importsWritten = false;
  const writeImports = () => {
    if (importsWritten) return;
    writeSection(out, SectionId.import, importBytes);
    importsWritten = true;
  };
  for (const section of sections) {
    if (section.id !== SectionId.custom && sectionRank(section.id) >= sectionRank(SectionId.import)) writeImports();
    if (section.id === SectionId.import || section.id === SectionId.memory) continue; // rewritten, moved
    const content = rewriteSection(bytes, where, section, map, metering, params, dropped);
    if (content) writeSection(out, section.id, content);
  }
  writeImports();
  return { bytes: out.view().slice(), dropped };
}

function rewriteSection(
  bytes: Uint8Array,
  where: string,
  section: Section,
  map: Layout,
  metering: Metering,
  params: number[],
  dropped: string[],
): Uint8Array | null {
  const r = new ByteReader(bytes, where, section.start, section.end);
  const shifted = map.fuelGlobal >= 0; // only the fuel global moves indices (defined globals)
  switch (section.id) {
    case SectionId.custom: {
      const name = section.name!;
      if (name === "name" && shifted) {
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
      return shifted ? renumberTables(r, map) : bytes.subarray(section.start, section.end);
    case SectionId.global:
      return shifted ? renumberGlobals(r, map) : bytes.subarray(section.start, section.end);
    case SectionId.export:
      return shifted ? renumberExports(r, map) : bytes.subarray(section.start, section.end);
    case SectionId.element:
      return shifted ? renumberElements(r, map) : bytes.subarray(section.start, section.end);
    case SectionId.data:
      return shifted ? renumberData(r, map) : bytes.subarray(section.start, section.end);
    case SectionId.code:
      return instrumentCode(r, map, metering, params);
    default:
      return bytes.subarray(section.start, section.end);
  }
}

function instrumentCode(r: ByteReader, map: Layout, metering: Metering, params: number[]): Uint8Array {
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
