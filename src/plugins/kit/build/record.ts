import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { BUILD_RECORD } from "../layout.ts";

/**
 * `.prx-kit/build.json`: what the last build of a folder made, so an unchanged plugin is not built again. `key`
 * digests everything the component is made from (the bundle, the world, the WIT, the engine and its options).
 */
export const BuildRecordSchema = z.strictObject({
  format: z.literal(1),
  key: z.string().regex(/^[0-9a-f]{64}$/),
  wasm: z.string().min(1),
  wasm_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  world: z.string().min(1),
});
export type BuildRecord = z.infer<typeof BuildRecordSchema>;

/** The folder's build record, or null when there is none or it is not one (then the plugin is simply rebuilt). */
export function readBuildRecord(dir: string): BuildRecord | null {
  const path = join(dir, BUILD_RECORD);
  if (!existsSync(path)) return null;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    // a record cut short (a build killed while writing it) only costs a rebuild
    return null;
  }
  const parsed = BuildRecordSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}

export function writeBuildRecord(dir: string, record: BuildRecord): void {
  writeFileSync(join(dir, BUILD_RECORD), JSON.stringify(BuildRecordSchema.parse(record), null, 2) + "\n");
}
