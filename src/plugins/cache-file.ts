import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";

/**
 * One JSON file of what a plugin told the host (a remote plugin's descriptor, a WASM plugin's declarations), kept
 * in the workspace cache so the next load need not start the plugin to learn it again. `what` names it in the log
 * ("the cached descriptor of remote plugin \"x\""). The caller checks the content against its own schema.
 */
export interface PluginCacheFile {
  /** The file's JSON, or null: none, unreadable or not JSON (both logged; the plugin starts to tell it again). */
  read(): unknown;
  /** Write it whole (a temporary file renamed over it); a failure is logged, the plugin then starts at its next load. */
  write(value: unknown): void;
}

export function pluginCacheFile(path: string, what: string, logger: Logger): PluginCacheFile {
  return {
    read() {
      let text: string;
      try {
        text = readFileSync(path, "utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
          logger.warn(`cannot read ${what}; the plugin starts to tell it again`, { error: errorMessage(error) });
        }
        return null;
      }
      try {
        return JSON.parse(text) as unknown;
      } catch (error) {
        logger.warn(`${what} is not JSON; the plugin starts to tell it again`, { error: errorMessage(error) });
        return null;
      }
    },
    write(value) {
      const temporary = `${path}.${process.pid}.tmp`;
      try {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(temporary, JSON.stringify(value), { mode: 0o600 });
        renameSync(temporary, path);
      } catch (error) {
        logger.warn(`cannot write ${what} (it starts at the next load)`, { error: errorMessage(error) });
      }
    },
  };
}
