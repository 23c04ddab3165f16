import { PrxError } from "../../../core/errors.ts";
import { ByteReader, ByteWriter } from "./leb128.ts";

/** Section ids of the core module format. */
export const SectionId = {
  custom: 0,
  type: 1,
  import: 2,
  function: 3,
  table: 4,
  memory: 5,
  global: 6,
  export: 7,
  start: 8,
  element: 9,
  code: 10,
  data: 11,
  dataCount: 12,
  tag: 13,
} as const;

/** Where known sections go (the binary format fixes their order; tag sits between memory and global). */
const ORDER: Readonly<Record<number, number>> = { 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 13: 6, 6: 7, 7: 8, 8: 9, 9: 10, 12: 11, 10: 12, 11: 13 };

export interface Section {
  id: number;
  /** The section's content, without its id and size. */
  start: number;
  end: number;
  /** For a custom section, its name. */
  name?: string;
}

const MAGIC = [0x00, 0x61, 0x73, 0x6d];
const VERSION = [0x01, 0x00, 0x00, 0x00];

/** Split a core module into its sections (in file order), checking the header and that each known id appears once, in order. */
export function readSections(bytes: Uint8Array, where: string): Section[] {
  if (bytes.length < 8 || MAGIC.some((b, i) => bytes[i] !== b)) {
    throw new PrxError("PLUGIN_LOAD", `${where} is not a WebAssembly module (bad magic)`);
  }
  if (VERSION.some((b, i) => bytes[4 + i] !== b)) {
    throw new PrxError("PLUGIN_LOAD", `${where} is not a core WebAssembly module (it may be a component)`);
  }
  const r = new ByteReader(bytes, where, 8);
  const sections: Section[] = [];
  let last = 0;
  while (!r.atEnd()) {
    const at = r.pos;
    const id = r.u8();
    const size = r.u32();
    const start = r.pos;
    r.skip(size);
    if (id === SectionId.custom) {
      const name = new ByteReader(bytes, where, start, start + size).name();
      sections.push({ id, start, end: start + size, name });
      continue;
    }
    const rank = ORDER[id];
    if (rank === undefined) return r.fail(`unknown section id ${id}`, at);
    if (rank <= last) r.fail(`section ${id} is out of order or repeated`, at);
    last = rank;
    sections.push({ id, start, end: start + size });
  }
  return sections;
}

/** Id, size and content of one section. */
export function writeSection(out: ByteWriter, id: number, content: Uint8Array): void {
  out.u8(id);
  out.u32(content.length);
  out.bytes(content);
}

/** Rank of a known section id in the module's order (for inserting a section that was missing). */
export function sectionRank(id: number): number {
  return ORDER[id] ?? 0;
}
