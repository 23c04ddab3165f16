import { createHash, type Hash } from "node:crypto";
import { ByteReader } from "./instrument/leb128.ts";
import { readSections, SectionId } from "./instrument/sections.ts";

/**
 * A component's shape: everything of it jco's transpiled output is made from, except what its core modules compute
 * and hold (their code, data, element segments and global initial values). Two builds of one kit plugin differ only
 * there (the QuickJS engine's snapshot of the plugin's module is the data of one core module and the initial values
 * of another's globals), and jco writes every core module of a component unchanged: so the output of one build,
 * with the core modules of the next copied in, is the next build's output (transpile.ts keeps a record per shape).
 * Component-level sections (types, imports, exports, instances, aliases, canonical functions) and each core module's
 * types, imports, functions, tables, memories, tags, exports and start are part of the shape as they are.
 */
export interface ComponentShape {
  /** Digest of the shape (hex). */
  digest: string;
  /** The component's core modules, in the order the binary holds them (nested components' in place). */
  modules: Uint8Array[];
}

const COMPONENT_CORE_MODULE = 1;
const COMPONENT_COMPONENT = 4;
/** Core sections left out of the shape: what runs and what is held, not what is imported, exported or typed. */
const CONTENT_SECTIONS: ReadonlySet<number> = new Set([
  SectionId.custom,
  SectionId.global,
  SectionId.element,
  SectionId.code,
  SectionId.data,
  SectionId.dataCount,
]);

/** The shape of a component binary; null when it is not one this walk reads (then it is simply transpiled). */
export function componentShape(wasm: Uint8Array): ComponentShape | null {
  const hash = createHash("sha256");
  const modules: Uint8Array[] = [];
  try {
    walkComponent(wasm, 0, wasm.length, hash, modules);
  } catch {
    // a binary this walk cannot follow has no shape: jco transpiles it (and reports what is wrong with it)
    return null;
  }
  return { digest: hash.digest("hex"), modules };
}

function walkComponent(bytes: Uint8Array, start: number, end: number, hash: Hash, modules: Uint8Array[]): void {
  if (end - start < 8 || bytes[start + 4] !== 0x0d) throw new Error("not a component");
  hash.update(bytes.subarray(start, start + 8));
  const r = new ByteReader(bytes, "component", start + 8, end);
  while (!r.atEnd()) {
    const id = r.u8();
    const size = r.u32();
    const from = r.pos;
    const to = from + size;
    if (to > end) throw new Error("section past the end");
    if (id === COMPONENT_CORE_MODULE) {
      const module = bytes.subarray(from, to);
      modules.push(module);
      hash.update(`\0core-module ${modules.length - 1}\0`);
      hashModuleShape(module, hash);
    } else if (id === COMPONENT_COMPONENT) {
      hash.update("\0component{");
      walkComponent(bytes, from, to, hash, modules);
      hash.update("}");
    } else {
      hash.update(`\0section ${id} ${size}\0`);
      hash.update(bytes.subarray(from, to));
    }
    r.pos = to;
  }
}

function hashModuleShape(module: Uint8Array, hash: Hash): void {
  for (const section of readSections(module, "core module")) {
    if (CONTENT_SECTIONS.has(section.id)) {
      // how many globals there are stays in the shape (their indices are what exports name), not their values
      const count = section.id === SectionId.global ? new ByteReader(module, "globals", section.start, section.end).u32() : 0;
      hash.update(`\0${section.id}:${count}`);
      continue;
    }
    hash.update(`\0${section.id}:${section.end - section.start}\0`);
    hash.update(module.subarray(section.start, section.end));
  }
}
