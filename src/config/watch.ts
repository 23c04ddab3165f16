import { watch, type FSWatcher } from "node:fs";
import { basename, dirname } from "node:path";

/**
 * How long the file must stay quiet before it is read: an editor's save (write, rename, chmod) and `prx config set`
 * (a staged file renamed over it) come as several events within a few milliseconds, and one read follows them.
 */
export const CONFIG_WATCH_DEBOUNCE_MS = 50;

export interface ConfigWatch {
  close(): void;
}

/**
 * Calls `changed` once after each burst of changes to the file at `path` (written, replaced by a rename, created,
 * removed). The directory is watched, not the file: an editor or `prx config set` replaces the file, which ends a
 * watch on the file itself. Null where the directory cannot be watched (then only POST /api/config/reload applies
 * an edit). `ended` is called when the watch ends by itself (an error from the watch), not on close().
 */
export function watchConfigFile(
  path: string,
  changed: () => void,
  debounceMs = CONFIG_WATCH_DEBOUNCE_MS,
  ended?: () => void,
): ConfigWatch | null {
  const name = basename(path);
  let timer: ReturnType<typeof setTimeout> | null = null;
  let watcher: FSWatcher;
  try {
    watcher = watch(dirname(path), { persistent: false }, (_event, file) => {
      if (file !== null && String(file) !== name) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = null;
        changed();
      }, debounceMs);
    });
  } catch {
    // the directory is gone or inotify's watch limit is reached; the reload route still works
    return null;
  }
  watcher.on("error", () => {
    if (timer) clearTimeout(timer);
    watcher.close();
    ended?.();
  });
  return {
    close() {
      if (timer) clearTimeout(timer);
      watcher.close();
    },
  };
}
