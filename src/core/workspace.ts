import { mkdirSync, realpathSync } from "node:fs";
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
  return plainWorkspacePaths(root);
}
