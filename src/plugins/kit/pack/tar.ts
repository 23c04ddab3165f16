import { PrxError } from "../../../core/errors.ts";

/**
 * A minimal ustar writer and reader for plugin packs: regular files only, deterministic headers (mode 0644, owner 0,
 * mtime 0), paths up to 255 bytes (name + prefix). The reader refuses every other entry type (links, devices,
 * directories, pax headers) instead of interpreting it.
 */
export interface TarFile {
  path: string;
  data: Uint8Array;
}

const BLOCK = 512;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

function writeString(header: Uint8Array, offset: number, length: number, text: string): void {
  const bytes = encoder.encode(text);
  if (bytes.length > length) throw new PrxError("INTERNAL", `tar field of ${length} bytes cannot hold "${text}"`);
  header.set(bytes, offset);
}

function writeOctal(header: Uint8Array, offset: number, length: number, value: number): void {
  writeString(header, offset, length, value.toString(8).padStart(length - 1, "0") + "\0");
}

/** Splits a path into ustar's prefix (155 bytes) and name (100) at a slash; null when no split fits. */
export function splitUstarPath(path: string): [prefix: string, name: string] | null {
  if (encoder.encode(path).length <= 100) return ["", path];
  for (let i = path.length - 1; i > 0; i--) {
    if (path[i] !== "/") continue;
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (encoder.encode(prefix).length <= 155 && encoder.encode(name).length <= 100 && name.length > 0) return [prefix, name];
  }
  return null;
}

function splitPath(path: string): [prefix: string, name: string] {
  const split = splitUstarPath(path);
  if (!split) throw new PrxError("PLUGIN_ADMISSION", `the path ${path} does not fit a tar header (a name of at most 100 bytes after a folder path of at most 155)`);
  return split;
}

function header(path: string, size: number): Uint8Array {
  const block = new Uint8Array(BLOCK);
  const [prefix, name] = splitPath(path);
  writeString(block, 0, 100, name);
  writeOctal(block, 100, 8, 0o644);
  writeOctal(block, 108, 8, 0);
  writeOctal(block, 116, 8, 0);
  writeOctal(block, 124, 12, size);
  writeOctal(block, 136, 12, 0);
  block.fill(0x20, 148, 156);
  block[156] = 0x30; // "0": regular file
  writeString(block, 257, 6, "ustar\0");
  writeString(block, 263, 2, "00");
  writeString(block, 345, 155, prefix);
  const sum = block.reduce((a, b) => a + b, 0);
  writeString(block, 148, 8, sum.toString(8).padStart(6, "0") + "\0 ");
  return block;
}

export function writeTar(files: readonly TarFile[]): Uint8Array<ArrayBuffer> {
  const size = files.reduce((n, f) => n + BLOCK + Math.ceil(f.data.length / BLOCK) * BLOCK, 2 * BLOCK);
  const out = new Uint8Array(size);
  let at = 0;
  for (const file of files) {
    out.set(header(file.path, file.data.length), at);
    at += BLOCK;
    out.set(file.data, at);
    at += Math.ceil(file.data.length / BLOCK) * BLOCK;
  }
  return out;
}

function readString(block: Uint8Array, offset: number, length: number): string {
  const field = block.subarray(offset, offset + length);
  const end = field.indexOf(0);
  try {
    return decoder.decode(end === -1 ? field : field.subarray(0, end));
  } catch (cause) {
    throw new PrxError("PLUGIN_ADMISSION", "the pack is not a valid tar archive (a header field is not UTF-8)", { cause });
  }
}

function readOctal(block: Uint8Array, offset: number, length: number, what: string): number {
  const text = readString(block, offset, length).trim();
  if (!/^[0-7]+$/.test(text)) throw new PrxError("PLUGIN_ADMISSION", `the pack is not a valid tar archive (${what} field)`);
  return parseInt(text, 8);
}

/** Entries in order; `limits` are checked from the headers before any content is copied. */
export function readTar(tar: Uint8Array, limits: { maxFiles: number; maxContentBytes: number }): TarFile[] {
  const files: TarFile[] = [];
  let total = 0;
  let at = 0;
  while (at + BLOCK <= tar.length) {
    const block = tar.subarray(at, at + BLOCK);
    if (block.every((b) => b === 0)) return files;
    const declared = readOctal(block, 148, 8, "checksum");
    const check = new Uint8Array(block);
    check.fill(0x20, 148, 156);
    if (check.reduce((a, b) => a + b, 0) !== declared) throw new PrxError("PLUGIN_ADMISSION", "the pack is not a valid tar archive (bad header checksum)");
    const type = String.fromCharCode(block[156]!);
    const prefix = readString(block, 345, 155);
    const path = prefix ? `${prefix}/${readString(block, 0, 100)}` : readString(block, 0, 100);
    if (type !== "0" && type !== "\0") {
      throw new PrxError("PLUGIN_ADMISSION", `the pack holds ${path}, which is not a regular file (tar type '${type}'): refused`, {
        hint: "packs made by `prx plugins pack` hold regular files only",
      });
    }
    const size = readOctal(block, 124, 12, "size");
    if (files.length + 1 > limits.maxFiles) throw new PrxError("LIMIT_EXCEEDED", `the pack holds more than ${limits.maxFiles} files`);
    total += size;
    if (total > limits.maxContentBytes) throw new PrxError("LIMIT_EXCEEDED", `the pack's files exceed ${limits.maxContentBytes} bytes`);
    at += BLOCK;
    if (at + size > tar.length) throw new PrxError("PLUGIN_ADMISSION", `the pack is cut short inside ${path}`);
    files.push({ path, data: tar.slice(at, at + size) });
    at += Math.ceil(size / BLOCK) * BLOCK;
  }
  throw new PrxError("PLUGIN_ADMISSION", "the pack is not a valid tar archive (no end marker)");
}
