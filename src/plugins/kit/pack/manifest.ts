import { createHash } from "node:crypto";
import { z } from "zod";
import { PLUGIN_NAME_PATTERN } from "../../manifest.ts";
import { PACK_MAX_FILES, PACK_MAX_PATH_BYTES } from "./limits.ts";

/**
 * `prx-pack.json`, the first file of a pack: what it holds, each file's size and SHA-256, and the content hash over
 * all of them (the pack's identity: `install` recomputes it from the files it unpacks).
 */
export const PACK_MANIFEST_FILE = "prx-pack.json";

export const PackManifestSchema = z.strictObject({
  format: z.literal(1),
  name: z.string().regex(PLUGIN_NAME_PATTERN),
  version: z.string().min(1),
  runtime: z.enum(["wasm", "remote"]),
  /** Hex SHA-256 of the file list (contentHash). */
  content_hash: z.string().regex(/^[0-9a-f]{64}$/),
  files: z
    .array(
      z.strictObject({
        path: z.string().min(1).refine((p) => Buffer.byteLength(p) <= PACK_MAX_PATH_BYTES, `at most ${PACK_MAX_PATH_BYTES} bytes`),
        size: z.number().int().nonnegative(),
        sha256: z.string().regex(/^[0-9a-f]{64}$/),
      }),
    )
    .min(1)
    .max(PACK_MAX_FILES),
});
export type PackManifest = z.infer<typeof PackManifestSchema>;
export type PackEntry = PackManifest["files"][number];

export function sha256Hex(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex");
}

/** The content hash: SHA-256 of `prx-pack-v1` and every file's path, size and SHA-256, sorted by path. */
export function contentHash(files: readonly PackEntry[]): string {
  const lines = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).map((f) => `${f.path}\n${f.size}\n${f.sha256}\n`);
  return sha256Hex(`prx-pack-v1\n${lines.join("")}`);
}
