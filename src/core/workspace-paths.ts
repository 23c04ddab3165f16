/**
 * A workspace's paths when its root can be known without touching the file system or loading node:path, node:os or
 * node:fs (together ~2 ms of a cold start): a channel process reads its configuration through them before it opens
 * anything (channels/connect.ts). openWorkspace (workspace.ts) is the general way: it creates the directories and
 * canonicalizes the root; for a root it would leave as it is, both give the same paths.
 */

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

/** The paths of the workspace at `root`, an absolute path in normal form: the one layout, openWorkspace's too. */
export function plainWorkspacePaths(root: string): Workspace {
  const base = root === "/" ? "" : root;
  return {
    root,
    configPath: `${base}/config.toml`,
    pluginsDir: `${base}/plugins`,
    hooksPath: `${base}/hooks.json`,
    dataDir: `${base}/data`,
    dbPath: `${base}/data/prx.db`,
    cacheDir: `${base}/cache`,
    logsDir: `${base}/logs`,
  };
}
