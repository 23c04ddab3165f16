import type { Database } from "bun:sqlite";
import { chmodSync, existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { errorMessage } from "../../core/errors.ts";
import { sha256Hex } from "../../core/ids.ts";

/**
 * sqlite-vec (https://github.com/asg017/sqlite-vec), the vector functions of memory's hybrid recall on SQLite. The
 * binary embeds the Linux x64 build of the npm package `sqlite-vec-linux-x64`; SQLite loads extensions from files
 * only, so it is written once to `<workspace>/cache/sqlite-vec/<sha256>.so` and loaded from there. Loaded only when
 * hybrid recall is on (a provider with `embedding_model`): a start without it never touches this module's asset.
 */
export const SQLITE_VEC_PLATFORM = "linux-x64";

export type VectorExtension = { loaded: true; version: string } | { loaded: false; reason: string };

const loaded = new WeakMap<Database, VectorExtension>();

/** Why this process cannot load the extension, or null when it can try. */
export function vectorExtensionUnsupported(): string | null {
  const here = `${process.platform}-${process.arch}`;
  if (here !== SQLITE_VEC_PLATFORM) {
    return `sqlite-vec is embedded for ${SQLITE_VEC_PLATFORM} only, this is ${here}; memory recall stays full-text search`;
  }
  return null;
}

/** The extension's file in the workspace cache, written once by content hash (a partial write is never loaded). */
async function extensionFile(cacheDir: string): Promise<string> {
  // the asset import stays inside this function: nothing reads the embedded file unless hybrid recall is on
  const asset = (await import("../../../node_modules/sqlite-vec-linux-x64/vec0.so", { with: { type: "file" } })) as { default: string };
  const bytes = await Bun.file(asset.default).bytes();
  const dir = join(cacheDir, "sqlite-vec");
  const file = join(dir, `${sha256Hex(bytes)}.so`);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, bytes, { mode: 0o600 });
  chmodSync(partial, 0o600);
  renameSync(partial, file);
  return file;
}

/**
 * Load sqlite-vec into `db` (once per connection). Never throws: where it cannot load (another platform, a SQLite
 * that refuses extensions, a cache directory that cannot hold executable code) the answer says why.
 */
export async function loadVectorExtension(db: Database, cacheDir: string): Promise<VectorExtension> {
  const known = loaded.get(db);
  if (known) return known;
  const unsupported = vectorExtensionUnsupported();
  let outcome: VectorExtension;
  if (unsupported) outcome = { loaded: false, reason: unsupported };
  else {
    try {
      db.loadExtension(await extensionFile(cacheDir), "sqlite3_vec_init");
      const version = db.query<{ v: string }, []>("SELECT vec_version() AS v").get()?.v ?? "unknown";
      outcome = { loaded: true, version };
    } catch (error) {
      outcome = { loaded: false, reason: `sqlite-vec did not load (${errorMessage(error)}); memory recall stays full-text search` };
    }
  }
  loaded.set(db, outcome);
  return outcome;
}
