import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { PrxError } from "../../../core/errors.ts";
import type { Workspace } from "../../../core/workspace.ts";
import { PLUGINS_DIR_MAX_ENTRIES } from "../../discovery.ts";
import { checkPluginDir, type PluginCheck } from "../check.ts";
import type { PackManifest } from "./manifest.ts";
import { packEntries } from "./pack.ts";
import type { TarFile } from "./tar.ts";
import { readPack } from "./unpack.ts";

/**
 * `prx plugins install <file|dir>`: a pack (verified by readPack) or a plugin folder (packed in memory the way
 * `pack` would) into `<workspace>/plugins/<name>/`. The files are staged in a dot-folder of plugins/ (discovery skips
 * those), pass validate's admission checks there, and only then take the plugin's place; an installed plugin of the
 * same name is replaced only with `force`.
 */
export interface InstallReport {
  manifest: PackManifest;
  dir: string;
  replaced: boolean;
  /** validate's report on the staged plugin; null when the check was skipped (`prx plugins dev`: the reload checks). */
  check: PluginCheck | null;
}

export interface InstallOptions {
  force?: boolean;
  /** Run validate's checks before the plugin takes its place (default true). */
  check?: boolean;
  /** A kit plugin folder is already built (`prx plugins dev` builds it itself): do not build it again. */
  prebuilt?: boolean;
}

const suffix = () => `${process.pid}-${Math.random().toString(36).slice(2, 8)}`;

async function source(path: string, prebuilt: boolean): Promise<{ manifest: PackManifest; files: TarFile[] }> {
  if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) {
    const { manifest, entries } = await packEntries(path, { build: !prebuilt });
    return { manifest, files: entries.slice(1) };
  }
  return readPack(path);
}

export async function installPlugin(path: string, workspace: Workspace, options: InstallOptions = {}): Promise<InstallReport> {
  const { manifest, files } = await source(path, options.prebuilt === true);
  const target = join(workspace.pluginsDir, manifest.name);
  const replaced = existsSync(target);
  if (replaced && !options.force) {
    throw new PrxError("CONFLICT", `${manifest.name} is already installed in ${target}`, {
      hint: "`prx plugins install --force` replaces it (a running gateway serves the old one until it reloads)",
    });
  }
  mkdirSync(workspace.pluginsDir, { recursive: true });
  const entries = readdirSync(workspace.pluginsDir).length - (replaced ? 1 : 0);
  if (entries + 1 > PLUGINS_DIR_MAX_ENTRIES) {
    throw new PrxError("LIMIT_EXCEEDED", `${workspace.pluginsDir} holds ${entries} entries; one more would pass the limit of ${PLUGINS_DIR_MAX_ENTRIES}`, {
      hint: "remove plugins the workspace no longer uses",
    });
  }
  const staging = join(workspace.pluginsDir, `.install-${manifest.name}-${suffix()}`);
  try {
    for (const file of files) {
      mkdirSync(dirname(join(staging, file.path)), { recursive: true });
      writeFileSync(join(staging, file.path), file.data, { mode: 0o644 });
    }
    let check: PluginCheck | null = null;
    if (options.check !== false) {
      check = await checkPluginDir(staging, workspace);
      if (check.info.name !== manifest.name) {
        throw new PrxError("PLUGIN_ADMISSION", `the pack says ${manifest.name} but its plugin.toml names ${check.info.name}`);
      }
      if (!check.ok) {
        throw new PrxError("PLUGIN_ADMISSION", `${manifest.name} does not pass the admission checks: ${check.info.message ?? check.info.status}`, {
          hint: "`prx plugins validate <dir>` on the plugin's folder shows the details",
        });
      }
    }
    const old = join(workspace.pluginsDir, `.replaced-${manifest.name}-${suffix()}`);
    if (replaced) renameSync(target, old);
    renameSync(staging, target);
    if (replaced) rmSync(old, { recursive: true, force: true });
    // the check saw the staged copy; report where the plugin lives now
    return { manifest, dir: target, replaced, check: check ? { ...check, info: { ...check.info, dir: target } } : null };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
