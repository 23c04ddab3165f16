import type { Workspace } from "./workspace.ts";

/**
 * A workspace's paths when its root can be known without touching the file system or loading node:path, node:os or
 * node:fs (together ~2 ms of a cold start): a channel process reads its configuration through them before it opens
 * anything (channels/connect.ts). openWorkspace (workspace.ts) is the general way: it creates the directories and
 * canonicalizes the root; for a root it would leave as it is, both give the same paths.
 */

/** An absolute POSIX path in normal form: what path.resolve returns unchanged. */
const PLAIN_ABSOLUTE = /^(?:\/(?!\.\.?(?:\/|$))[^/]+)+$/;

/**
 * The workspace root (the flag, else PRX_WORKSPACE, else $HOME/.prx: the precedence of workspaceRootFrom) when it
 * is already an absolute POSIX path in normal form; null otherwise (relative, `..`, a trailing slash, no HOME,
 * Windows), and the caller uses openWorkspace. Not canonical: a symlink in it is not resolved.
 */
export function plainWorkspaceRoot(flag: string | undefined, env: Record<string, string | undefined> = process.env): string | null {
  const chosen = flag ?? env.PRX_WORKSPACE ?? (env.HOME ? `${env.HOME}/.prx` : undefined);
  return chosen !== undefined && PLAIN_ABSOLUTE.test(chosen) ? chosen : null;
}

/** The paths of the workspace at `root`, a plainWorkspaceRoot (the layout openWorkspace returns). */
export function plainWorkspacePaths(root: string): Workspace {
  return {
    root,
    configPath: `${root}/config.toml`,
    pluginsDir: `${root}/plugins`,
    hooksPath: `${root}/hooks.json`,
    dataDir: `${root}/data`,
    dbPath: `${root}/data/prx.db`,
    cacheDir: `${root}/cache`,
    logsDir: `${root}/logs`,
  };
}
