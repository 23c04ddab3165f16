import { lstatSync, mkdirSync, realpathSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { SECRETS_FILE } from "../../config/secrets-file.ts";
import { PrxError } from "../../core/errors.ts";

/**
 * Workspace entries the file tools never write (config could enable the shell, hooks run commands,
 * plugins load code, skills instruct the agent, data holds the database). Paths are relative to the workspace root,
 * first segment.
 */
export const FILE_WRITE_PROTECTED = ["config.toml", "hooks.json", "data", "plugins", "skills", "cache"] as const;
/** What tools never read either: the keys in secrets.env, and data/ (the database, tokens, the running gateway's control token). */
export const FILE_READ_PROTECTED = [SECRETS_FILE, "data"] as const;

function denied(requested: string, why: string): PrxError {
  return new PrxError("TOOL_DENIED", `path "${requested}" is refused: ${why}`, {
    hint: "use a path inside the workspace, without .. or symlinks leading outside it",
  });
}

export function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** realpath, where a dangling symlink is a refusal rather than a bare ENOENT. */
function realOf(path: string, requested: string): string {
  try {
    return realpathSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw denied(requested, "it goes through a dangling symlink");
    }
    throw error;
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/**
 * Resolve `requested` against the canonical root and verify, component by component, that nothing that exists
 * on the way (a symlink anywhere in the chain) leads outside. Returns the canonical root and the lexical target.
 */
export function resolveConfined(workspace: string, requested: string): { root: string; target: string } {
  if (requested.includes("\u0000")) throw denied(requested, "it contains a NUL byte");
  const root = realpathSync(workspace);
  const target = resolve(root, requested);
  if (!isInside(root, target)) throw denied(requested, "it is outside the workspace");
  let current = root;
  for (const segment of relative(root, target).split(sep).filter(Boolean)) {
    current = join(current, segment);
    if (!exists(current)) break;
    if (lstatSync(current).isSymbolicLink() && !isInside(root, realOf(current, requested))) {
      throw denied(requested, `${relative(root, current)} is a symlink leading outside the workspace`);
    }
  }
  return { root, target };
}

function refuseProtected(root: string, path: string, requested: string): void {
  const first = relative(root, path).split(sep)[0] ?? "";
  if ((FILE_WRITE_PROTECTED as readonly string[]).includes(first)) {
    throw denied(requested, `${first} is managed by prx and cannot be written by tools`);
  }
}

/** Canonical path of an existing file to read, confined to the workspace; never secrets.env or data/ (FILE_READ_PROTECTED). */
export function confineRead(workspace: string, requested: string): string {
  const { root, target } = resolveConfined(workspace, requested);
  if (!exists(target)) throw new PrxError("TOOL_FAILED", `file "${requested}" does not exist in the workspace`);
  const real = realOf(target, requested);
  if (!isInside(root, real)) throw denied(requested, "it resolves outside the workspace");
  const first = relative(root, real).split(sep)[0] ?? "";
  if ((FILE_READ_PROTECTED as readonly string[]).includes(first)) throw denied(requested, `${first} holds prx's secrets and is not read by tools`);
  return real;
}

/**
 * Canonical destination of a write: missing parent directories are created one at a time inside the
 * workspace, the parent's real path is re-checked, and an existing symlink destination must stay inside.
 */
export function confineWrite(workspace: string, requested: string): string {
  const { root, target } = resolveConfined(workspace, requested);
  if (target === root) throw denied(requested, "it is the workspace root");
  // checked before any directory is created, and again on the real destination (a symlink could point there)
  refuseProtected(root, target, requested);
  const parent = dirname(target);
  let current = root;
  for (const segment of relative(root, parent).split(sep).filter(Boolean)) {
    current = join(current, segment);
    if (!exists(current)) mkdirSync(current, { mode: 0o755 });
  }
  const parentReal = realpathSync(parent);
  if (!isInside(root, parentReal)) throw denied(requested, "its directory resolves outside the workspace");
  let destination = join(parentReal, basename(target));
  if (exists(destination) && lstatSync(destination).isSymbolicLink()) {
    destination = realOf(destination, requested);
    if (!isInside(root, destination)) throw denied(requested, "it is a symlink leading outside the workspace");
  }
  refuseProtected(root, destination, requested);
  return destination;
}
