import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openWorkspace, type Workspace } from "../../../core/workspace.ts";
import { kitCacheDir } from "../build/cache-dir.ts";

/**
 * A workspace that lives as long as one check or test run, in the system temp dir. Its `cache/` is the kit's cache
 * of transpiled components (content-addressed), so a plugin tested again is not transpiled again.
 */
export function throwawayWorkspace(): { workspace: Workspace; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), "prx-plugin-test-"));
  const transpiled = join(kitCacheDir(), "transpiled");
  mkdirSync(transpiled, { recursive: true });
  symlinkSync(transpiled, join(root, "cache"));
  return { workspace: openWorkspace(root), remove: () => rmSync(root, { recursive: true, force: true }) };
}
