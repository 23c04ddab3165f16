import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PrxError } from "../../core/errors.ts";
import type { Workspace } from "../../core/workspace.ts";
import { checkPluginDir, type PluginCheck } from "../kit/check.ts";
import type { RemoteTransport } from "../remote/manifest.ts";
import { runBun } from "./bun-install.ts";
import { installedPackage, readFolderMark, remoteManifest, workerEntry, writeFolderPackage } from "./folder.ts";
import { parseNpmSpec, pluginNameOf } from "./spec.ts";

export interface AddOptions {
  transport: RemoteTransport;
  name?: string;
  allowScripts: boolean;
  env?: Record<string, string | undefined>;
}

export interface AddedPlugin {
  name: string;
  dir: string;
  package: string;
  version: string;
  check: PluginCheck;
}

/** Write plugin.toml from what was installed, and check the folder as `prx plugins validate` does. */
async function finish(workspace: Workspace, dir: string, name: string, pkg: string, transport: RemoteTransport): Promise<AddedPlugin> {
  const installed = installedPackage(dir, pkg);
  writeFileSync(join(dir, "plugin.toml"), remoteManifest(name, installed.version, installed.description, transport));
  const check = await checkPluginDir(dir, workspace);
  return { name, dir, package: pkg, version: installed.version, check };
}

/**
 * `prx plugins add <package>[@version]`: a plugin folder for an elizaOS plugin from npm (package.json naming it,
 * worker.js bootstrapping it, plugin.toml with runtime = "remote"), installed with the Bun inside prx (lockfile kept,
 * install scripts off unless allowed), then checked. A folder that fails to install or to check is removed again, so
 * nothing half-made is left for the gateway to load.
 */
export async function addNpmPlugin(workspace: Workspace, spec: string, options: AddOptions): Promise<AddedPlugin> {
  const { package: pkg, version } = parseNpmSpec(spec);
  const name = pluginNameOf(pkg, options.name);
  const dir = join(workspace.pluginsDir, name);
  if (existsSync(dir)) {
    throw new PrxError("CONFLICT", `plugins/${name} already exists`, {
      hint: `prx plugins update ${name} to change its version, or --name to add it under another name`,
    });
  }
  mkdirSync(dir, { recursive: true });
  try {
    writeFolderPackage(dir, name, { package: pkg, transport: options.transport }, version ?? "latest");
    writeFileSync(join(dir, "worker.js"), workerEntry(pkg));
    await runBun(dir, ["install"], options);
    const added = await finish(workspace, dir, name, pkg, options.transport);
    if (!added.check.ok) throw new PrxError("PLUGIN_LOAD", `plugins/${name} was installed but does not load: ${added.check.notes.join("; ")}`);
    return added;
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** `prx plugins update <name> [version]`: the package at `version` (default: the registry's latest), lockfile updated. */
export async function updateNpmPlugin(workspace: Workspace, name: string, version: string | undefined, options: Omit<AddOptions, "transport" | "name">): Promise<AddedPlugin> {
  const dir = join(workspace.pluginsDir, name);
  const mark = readFolderMark(dir, name);
  await runBun(dir, ["add", `${mark.package}@${version ?? "latest"}`], options);
  return finish(workspace, dir, name, mark.package, mark.transport);
}

/** `prx plugins remove <name>`: the folder of a plugin `prx plugins add` made. */
export function removeNpmPlugin(workspace: Workspace, name: string): string {
  const dir = join(workspace.pluginsDir, name);
  readFolderMark(dir, name);
  rmSync(dir, { recursive: true, force: true });
  return dir;
}
