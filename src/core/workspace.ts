import { chmodSync, mkdirSync, realpathSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { PrxError } from "./errors.ts";
import { plainWorkspacePaths, type Workspace } from "./workspace-paths.ts";

export type { Workspace };

/** Order of precedence: explicit flag, PRX_WORKSPACE, ~/.prx. */
export function workspaceRootFrom(flag?: string): string {
  // node:os loads only for the default (a measurable part of a one-shot command's start)
  const chosen = flag ?? process.env.PRX_WORKSPACE ?? join((require("node:os") as typeof import("node:os")).homedir(), ".prx");
  return resolve(chosen);
}

/** Folders that hold the database, logs and caches: readable by their owner only, as config.toml is. */
const PRIVATE_DIRS = ["data", "cache", "logs"] as const;

/** Creates `dir` as 0700, or takes group and other access away from one made before (when this user owns it). */
function ownerOnly(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = statSync(dir);
  if ((stat.mode & 0o077) === 0 || stat.uid !== process.getuid?.()) return;
  try {
    chmodSync(dir, 0o700);
  } catch (cause) {
    // a read-only file system keeps its modes: the workspace is still read
    if ((cause as NodeJS.ErrnoException).code !== "EROFS") throw cause;
  }
}

/** Create the workspace directories if needed and return canonical (symlink-resolved) paths. */
export function openWorkspace(flag?: string): Workspace {
  const wanted = workspaceRootFrom(flag);
  let root: string;
  try {
    mkdirSync(wanted, { recursive: true, mode: 0o700 });
    root = realpathSync(wanted);
    mkdirSync(join(root, "plugins"), { recursive: true });
    for (const dir of PRIVATE_DIRS) ownerOnly(join(root, dir));
  } catch (cause) {
    throw new PrxError("WORKSPACE", `cannot create workspace at ${wanted}: ${(cause as Error).message}`, {
      cause,
      hint: "choose a writable directory with --workspace DIR or PRX_WORKSPACE",
    });
  }
  return plainWorkspacePaths(root);
}
