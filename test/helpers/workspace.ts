/** The one way tests make a throw-away prx workspace: a fresh directory, optionally a config.toml and plugins. */
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

export interface TempWorkspace {
  /** The workspace root (what `-w` / `--workspace` is given). */
  dir: string;
  /** `<dir>/plugins` (created when the options name plugins, even none). */
  pluginsDir: string;
  /** Removes the whole directory. */
  cleanup(): void;
}

export interface TempWorkspaceOptions {
  /** Plugin folders copied into plugins/, each under its own folder name. */
  plugins?: readonly string[];
  /** A cache folder shared by several workspaces, linked as cache/, so transpiled components are built once. */
  sharedCache?: string;
  /** The directory name's prefix in the system temp folder (names the test in a leftover). */
  prefix?: string;
}

/** A fresh workspace; `config` (when given) is written as its config.toml. Call cleanup() when done. */
export function tempWorkspace(config?: string, options: TempWorkspaceOptions = {}): TempWorkspace {
  const dir = mkdtempSync(join(tmpdir(), options.prefix ?? "prx-test-"));
  const pluginsDir = join(dir, "plugins");
  if (config !== undefined) writeFileSync(join(dir, "config.toml"), config);
  if (options.sharedCache) {
    mkdirSync(options.sharedCache, { recursive: true });
    symlinkSync(options.sharedCache, join(dir, "cache"));
  }
  if (options.plugins) {
    mkdirSync(pluginsDir, { recursive: true });
    for (const from of options.plugins) cpSync(from, join(pluginsDir, basename(from)), { recursive: true });
  }
  return { dir, pluginsDir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
