import { PrxError } from "../../core/errors.ts";

/**
 * Rewrite the memory section of a core wasm module so every memory it defines has maximum <= maxPages.
 * `memory.grow` past it then fails inside the guest instead of growing the host process: this is how
 * `max_memory_mb` is enforced (JavaScriptCore has no per-instance memory accounting).
 * Imported memories are left alone: they are defined (and capped) by another core module.
 */
export function capModuleMemory(bytes: Uint8Array, maxPages: number, where: string): Uint8Array {
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    throw new PrxError("PLUGIN_LOAD", `${where} is not a WebAssembly module (bad magic)`);
  }
  if (bytes[4] !== 1 || bytes[5] !== 0 || bytes[6] !== 0 || bytes[7] !== 0) {
    throw new PrxError("PLUGIN_LOAD", `${where} is not a core WebAssembly module (it may be a component)`);
  }
  let pos = 8;
  while (pos < bytes.length) {
    const id = bytes[pos]!;
    const [size, sizeLen] = readU32(bytes, pos + 1);
    const start = pos + 1 + sizeLen;
    const end = start + size;
    if (end > bytes.length) throw new PrxError("PLUGIN_LOAD", `${where}: truncated section ${id}`);
    if (id === 5) {
      const body = rewriteMemorySection(bytes.subarray(start, end), maxPages, where);
      const header = [5, ...writeU32(body.length)];
      const out = new Uint8Array(pos + header.length + body.length + (bytes.length - end));
      out.set(bytes.subarray(0, pos), 0);
      out.set(header, pos);
      out.set(body, pos + header.length);
      out.set(bytes.subarray(end), pos + header.length + body.length);
      return out;
    }
    pos = end;
  }
  return bytes;
}

function rewriteMemorySection(section: Uint8Array, maxPages: number, where: string): Uint8Array {
  const [count, countLen] = readU32(section, 0);
  let pos = countLen;
  const out: number[] = [...writeU32(count)];
  for (let i = 0; i < count; i++) {
    const flags = section[pos++]!;
    if (flags & 0x04) throw new PrxError("PLUGIN_LOAD", `${where}: 64-bit memories are not supported`);
    const [min, minLen] = readU32(section, pos);
    pos += minLen;
    let max: number | undefined;
    if (flags & 0x01) {
      const [m, mLen] = readU32(section, pos);
      pos += mLen;
      max = m;
    }
    if (min > maxPages) {
      throw new PrxError(
        "PLUGIN_LOAD",
        `${where} needs ${pagesToMb(min)} MB of initial memory, more than its max_memory_mb (${pagesToMb(maxPages)} MB)`,
        { hint: "raise [resources] max_memory_mb in plugin.toml or shrink the module's memory" },
      );
    }
    const capped = Math.min(max ?? maxPages, maxPages);
    out.push(flags | 0x01, ...writeU32(min), ...writeU32(capped));
  }
  for (; pos < section.length; pos++) out.push(section[pos]!);
  return Uint8Array.from(out);
}

function pagesToMb(pages: number): number {
  return Math.round((pages * 65536 * 100) / (1024 * 1024)) / 100;
}

function readU32(bytes: Uint8Array, at: number): [number, number] {
  let result = 0;
  let shift = 0;
  let pos = at;
  for (;;) {
    const b = bytes[pos++];
    if (b === undefined) throw new PrxError("PLUGIN_LOAD", "truncated LEB128 in wasm module");
    result += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) break;
    shift += 7;
    if (shift > 35) throw new PrxError("PLUGIN_LOAD", "malformed LEB128 in wasm module");
  }
  return [result, pos - at];
}

function writeU32(value: number): number[] {
  const out: number[] = [];
  let v = value >>> 0;
  do {
    let b = v & 0x7f;
    v >>>= 7;
    if (v !== 0) b |= 0x80;
    out.push(b);
  } while (v !== 0);
  return out;
}
