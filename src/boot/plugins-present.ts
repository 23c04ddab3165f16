import { existsSync, readdirSync } from "node:fs";
import type { Workspace } from "../core/workspace.ts";

/** Anything the plugin runtime would load: an entry of plugins/ (not a dot-folder) or hooks.json. */
export function pluginsPresent(workspace: Workspace): boolean {
  if (existsSync(workspace.hooksPath)) return true;
  try {
    return readdirSync(workspace.pluginsDir).some((name) => !name.startsWith("."));
  } catch (error) {
    // unreadable: let the plugin runtime load and say why
    return (error as NodeJS.ErrnoException).code !== "ENOENT";
  }
}
