import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { z } from "zod";
import { PrxError } from "../../../core/errors.ts";
import { PACK_MANIFEST_MAX_BYTES, PACK_MAX_ARCHIVE_BYTES, PACK_MAX_CONTENT_BYTES, PACK_MAX_FILES } from "./limits.ts";
import { contentHash, PACK_MANIFEST_FILE, PackManifestSchema, sha256Hex, type PackManifest } from "./manifest.ts";
import { checkPackPath } from "./paths.ts";
import { readTar, type TarFile } from "./tar.ts";

/** Tar overhead on top of the content: a header and at most one block of padding per file, and the end marker. */
const TAR_OVERHEAD_BYTES = (PACK_MAX_FILES + 1) * 1024 + 1024;

function readArchive(path: string): Uint8Array {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (cause) {
    throw new PrxError("NOT_FOUND", `cannot open ${path}: ${(cause as Error).message}`, { cause });
  }
  try {
    const size = fstatSync(fd).size;
    if (size > PACK_MAX_ARCHIVE_BYTES) {
      throw new PrxError("LIMIT_EXCEEDED", `${path} is ${size} bytes, more than a pack may be (${PACK_MAX_ARCHIVE_BYTES})`);
    }
    const bytes = new Uint8Array(size);
    for (let at = 0; at < size; ) {
      const n = readSync(fd, bytes, at, size - at, at);
      if (n === 0) break;
      at += n;
    }
    return bytes;
  } finally {
    closeSync(fd);
  }
}

/**
 * A pack read and verified: within the limits, prx-pack.json first and valid, every other entry listed there with
 * its size and SHA-256 (and nothing unlisted), the content hash recomputed. Only then are the files returned.
 */
export function readPack(path: string): { manifest: PackManifest; files: TarFile[] } {
  const archive = readArchive(path);
  let tar: Uint8Array;
  try {
    tar = gunzipSync(archive, { maxOutputLength: PACK_MAX_CONTENT_BYTES + TAR_OVERHEAD_BYTES + PACK_MANIFEST_MAX_BYTES });
  } catch (cause) {
    const tooBig = (cause as { code?: string }).code === "ERR_BUFFER_TOO_LARGE";
    throw new PrxError(tooBig ? "LIMIT_EXCEEDED" : "PLUGIN_ADMISSION", tooBig ? `${path} unpacks to more than a pack may hold` : `${path} is not a gzip file`, {
      cause,
      hint: "install a .tar.gz made by `prx plugins pack`",
    });
  }
  const [first, ...files] = readTar(tar, { maxFiles: PACK_MAX_FILES + 1, maxContentBytes: PACK_MAX_CONTENT_BYTES + PACK_MANIFEST_MAX_BYTES });
  if (!first || first.path !== PACK_MANIFEST_FILE) throw new PrxError("PLUGIN_ADMISSION", `${path} does not start with ${PACK_MANIFEST_FILE}: not a prx pack`);
  if (first.data.length > PACK_MANIFEST_MAX_BYTES) throw new PrxError("LIMIT_EXCEEDED", `${PACK_MANIFEST_FILE} is larger than ${PACK_MANIFEST_MAX_BYTES} bytes`);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(first.data));
  } catch (cause) {
    throw new PrxError("PLUGIN_ADMISSION", `${path}: ${PACK_MANIFEST_FILE} is not JSON`, { cause });
  }
  const parsed = PackManifestSchema.safeParse(json);
  if (!parsed.success) throw new PrxError("PLUGIN_ADMISSION", `${path}: invalid ${PACK_MANIFEST_FILE}: ${z.prettifyError(parsed.error)}`);
  const manifest = parsed.data;
  const listed = new Map(manifest.files.map((f) => [f.path, f]));
  if (listed.size !== manifest.files.length) throw new PrxError("PLUGIN_ADMISSION", `${path}: ${PACK_MANIFEST_FILE} lists a file twice`);
  const seen = new Set<string>();
  for (const file of files) {
    checkPackPath(file.path, path);
    const entry = listed.get(file.path);
    if (!entry || seen.has(file.path)) throw new PrxError("PLUGIN_ADMISSION", `${path} holds ${file.path}, which its manifest does not list (or twice)`);
    seen.add(file.path);
    if (entry.size !== file.data.length || entry.sha256 !== sha256Hex(file.data)) {
      throw new PrxError("PLUGIN_ADMISSION", `${path}: ${file.path} does not match its SHA-256 in ${PACK_MANIFEST_FILE}: the pack was altered`);
    }
  }
  if (seen.size !== listed.size) throw new PrxError("PLUGIN_ADMISSION", `${path}: files its manifest lists are missing`);
  if (contentHash(manifest.files) !== manifest.content_hash) throw new PrxError("PLUGIN_ADMISSION", `${path}: the content hash does not match its files`);
  return { manifest, files };
}
