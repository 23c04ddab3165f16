import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** Where everything of one prx installation lives. All paths are absolute and canonical. */
export interface Workspace {
  root: string;
  configPath: string;
  pluginsDir: string;
  hooksPath: string;
  dataDir: string;
  dbPath: string;
  cacheDir: string;
  logsDir: string;
}

/** Order of precedence: explicit flag, PRX_WORKSPACE, ~/.prx. */
export function workspaceRootFrom(flag?: string): string {
  const chosen = flag ?? process.env.PRX_WORKSPACE ?? join(homedir(), ".prx");
  return resolve(chosen);
}

/**
 * The paths of the workspace at `root`, computed without touching the file system (no node:fs, which costs ~1 ms to
 * load): canonical only when `root` is. openWorkspace (workspace.ts) creates the directories and canonicalizes.
 */
export function workspacePaths(root: string): Workspace {
  return {
    root,
    configPath: join(root, "config.toml"),
    pluginsDir: join(root, "plugins"),
    hooksPath: join(root, "hooks.json"),
    dataDir: join(root, "data"),
    dbPath: join(root, "data", "prx.db"),
    cacheDir: join(root, "cache"),
    logsDir: join(root, "logs"),
  };
}
