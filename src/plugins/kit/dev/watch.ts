import { existsSync, watch, type FSWatcher } from "node:fs";
import { join } from "node:path";
import { KIT_DIR } from "../layout.ts";

/**
 * Watches a plugin folder for changes to its sources: every file but the build's own outputs (`.prx-kit/`, the
 * component, packs), node_modules, and dot-files. Changes within DEV_DEBOUNCE_MS of each other count as one (an
 * editor's save is often several writes); `onChange` gets the paths that changed.
 */
export const DEV_DEBOUNCE_MS = 20;

/**
 * Files editors write beside the one being saved and remove again: vim's backup (`x~`) and its write test (`4913`),
 * Emacs' lock and autosave (`#x#`), JetBrains' safe-write copies, swap files of vim and Kate, and `.tmp`/`.bak` copies.
 */
const EDITOR_TEMPORARY = /(?:~|\.(?:swp|swo|swx|kate-swp|tmp|bak|orig)|___jb_(?:tmp|old)___|\.tmp-\d+)$|^(?:#.*#|\d+)$/;

export function isWatchedSource(path: string, outputs: readonly string[]): boolean {
  const parts = path.split(/[\\/]/);
  if (parts.some((part) => part === "node_modules" || part === KIT_DIR || part.startsWith("."))) return false;
  if (path.endsWith(".tar.gz") || EDITOR_TEMPORARY.test(parts.at(-1)!)) return false;
  return !outputs.includes(parts.join("/"));
}

export function watchSources(dir: string, outputs: readonly string[], onChange: (paths: string[]) => void): FSWatcher {
  let pending = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const watcher = watch(dir, { recursive: true }, (_event, file) => {
    const path = file?.toString();
    if (!path || !isWatchedSource(path, outputs)) return;
    pending.add(path);
    clearTimeout(timer);
    timer = setTimeout(() => {
      // an editor's (or sed's) temporary file is gone by now: name the files that are there, if any
      const all = [...pending].sort();
      const present = all.filter((p) => existsSync(join(dir, p)));
      pending = new Set();
      onChange(present.length > 0 ? present : all);
    }, DEV_DEBOUNCE_MS);
  });
  return watcher;
}
