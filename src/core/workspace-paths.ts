/**
 * The layout of a workspace, computed without touching the file system or loading node:path, node:os or node:fs
 * (together ~2 ms of a cold start): a channel process reads its configuration through these paths before it opens
 * anything (channels/connect.ts). openWorkspace (workspace.ts) creates the directories and canonicalizes the root.
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

/** The paths of the workspace at `root` (absolute and normalized), `sep` the platform's path separator. */
export function workspacePaths(root: string, sep: string): Workspace {
  const base = root.endsWith(sep) ? root.slice(0, -sep.length) : root;
  const at = (...parts: string[]) => [base, ...parts].join(sep);
  return {
    root,
    configPath: at("config.toml"),
    pluginsDir: at("plugins"),
    hooksPath: at("hooks.json"),
    dataDir: at("data"),
    dbPath: at("data", "prx.db"),
    cacheDir: at("cache"),
    logsDir: at("logs"),
  };
}

/** An absolute POSIX path in normal form: what path.resolve returns unchanged. */
const PLAIN_ABSOLUTE = /^(?:\/(?!\.\.?(?:\/|$))[^/]+)+$/;

/**
 * The workspace root (the flag, else PRX_WORKSPACE, else $HOME/.prx: the precedence of workspaceRootFrom) when it
 * is already an absolute POSIX path in normal form; null otherwise (relative, `..`, a trailing slash, no HOME,
 * Windows), and the caller resolves it with openWorkspace. Not canonical: a symlink in it is not resolved.
 */
export function plainWorkspaceRoot(flag: string | undefined, env: Record<string, string | undefined> = process.env): string | null {
  const chosen = flag ?? env.PRX_WORKSPACE ?? (env.HOME ? `${env.HOME}/.prx` : undefined);
  return chosen !== undefined && PLAIN_ABSOLUTE.test(chosen) ? chosen : null;
}
