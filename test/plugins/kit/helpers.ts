import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The kit's cache for tests (the QuickJS engine, the WIT folder, transpiled components): shared, outside HOME. */
export const TEST_KIT_CACHE = join(tmpdir(), "prx-kit-test-cache");
mkdirSync(TEST_KIT_CACHE, { recursive: true });
process.env.PRX_KIT_CACHE = TEST_KIT_CACHE;

/** A temp directory removed by the returned function. */
export function tempDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
