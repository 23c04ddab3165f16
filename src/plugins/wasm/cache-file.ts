import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { z } from "zod";

/**
 * Writes one file of the disk caches atomically: a temporary file beside it, then a rename, so a reader never sees a
 * file cut short. Another process that wrote the same path first wrote the same content (paths name contents).
 */
export function writeCacheFile(path: string, content: Uint8Array | string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  writeFileSync(tmp, content);
  try {
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    if (!existsSync(path)) throw error;
  }
}

/** A cache file as its schema reads it; null when it is missing, not JSON (a write cut short) or of another shape. */
export function readCacheFile<T>(path: string, schema: z.ZodType<T>): T | null {
  if (!existsSync(path)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return null; // not JSON: the cache is rebuilt over it
  }
  const parsed = schema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}
