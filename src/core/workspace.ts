import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { PrxError } from "./errors.ts";
import { workspacePaths, workspaceRootFrom, type Workspace } from "./workspace-paths.ts";

export { workspacePaths, workspaceRootFrom, type Workspace } from "./workspace-paths.ts";

/** Create the workspace directories if needed and return canonical (symlink-resolved) paths. */
export function openWorkspace(flag?: string): Workspace {
  const wanted = workspaceRootFrom(flag);
  let root: string;
  try {
    mkdirSync(wanted, { recursive: true, mode: 0o700 });
    root = realpathSync(wanted);
    for (const dir of ["plugins", "data", "cache", "logs"]) mkdirSync(join(root, dir), { recursive: true });
  } catch (cause) {
    throw new PrxError("WORKSPACE", `cannot create workspace at ${wanted}: ${(cause as Error).message}`, {
      cause,
      hint: "choose a writable directory with --workspace DIR or PRX_WORKSPACE",
    });
  }
  return workspacePaths(root);
}
