import { realpathSync } from "node:fs";
import { errorMessage, PrxError } from "../../core/errors.ts";
import type { Workspace } from "../../core/workspace.ts";
import { PluginRuntime } from "./runtime.ts";
import type { PluginRuntimeOptions, RuntimeServices } from "./types.ts";

/** The one registry of runtimes: one per canonical workspace in a process (a runtime removes itself when it stops). */
const runtimes = new Map<string, PluginRuntime>();

function forget(runtime: PluginRuntime): void {
  if (runtimes.get(runtime.workspace.root) === runtime) runtimes.delete(runtime.workspace.root);
}

/**
 * The one runtime of a workspace in this process, keyed by the canonical (realpath) root: a symlinked path
 * to the same workspace gets the same object. Services and options of later calls are ignored.
 */
export function getPluginRuntime(workspace: Workspace, services: RuntimeServices, options?: PluginRuntimeOptions): PluginRuntime {
  let root: string;
  try {
    root = realpathSync(workspace.root);
  } catch (cause) {
    throw new PrxError("WORKSPACE", `workspace ${workspace.root} does not exist: ${errorMessage(cause)}`, { cause });
  }
  let runtime = runtimes.get(root);
  if (!runtime) {
    const canonical = root === workspace.root ? workspace : canonicalWorkspace(workspace, root);
    const created: PluginRuntime = new PluginRuntime(canonical, services, options, () => forget(created));
    runtimes.set(root, created);
    runtime = created;
  }
  return runtime;
}

function canonicalWorkspace(workspace: Workspace, root: string): Workspace {
  const swap = (path: string) => (path.startsWith(workspace.root) ? root + path.slice(workspace.root.length) : path);
  return {
    root,
    configPath: swap(workspace.configPath),
    pluginsDir: swap(workspace.pluginsDir),
    hooksPath: swap(workspace.hooksPath),
    dataDir: swap(workspace.dataDir),
    dbPath: swap(workspace.dbPath),
    cacheDir: swap(workspace.cacheDir),
    logsDir: swap(workspace.logsDir),
  };
}
