import { closeSync, constants, type Dirent, existsSync, fstatSync, lstatSync, openSync, readdirSync, readSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, normalize, sep } from "node:path";
import { PrxError, toPrxError } from "../core/errors.ts";
import { parseManifest, type ParsedManifest, type PluginManifest } from "./manifest.ts";
import { fileStamp, type DiscoveryCache, type KnownPlugin, type ListedDir } from "./discovery-cache.ts";
import type { PluginDirWatch } from "./dir-watch.ts";
import type { DiscoveredError, DiscoveredOk, DiscoveredPlugin } from "./discovered.ts";
import type { PluginKind } from "./types.ts";

/** Admission limits: checked before anything is parsed or loaded. */
export const PLUGINS_DIR_MAX_ENTRIES = 256;
export const MANIFEST_MAX_BYTES = 256 * 1024;
/** Applies to the wasm file and, for remote plugins, to the entry file. */
export const WASM_MAX_BYTES = 128 * 1024 * 1024;
export const MANIFEST_FILE = "plugin.toml";
const WASM_HEADER_BYTES = 8;

function admissionError(message: string, hint?: string): PrxError {
  return new PrxError("PLUGIN_ADMISSION", message, hint ? { hint } : {});
}

/** Open a file refusing symlinks (lstat for a clear message, O_NOFOLLOW against a swap in between). */
function openRegularFile(path: string, label: string, maxBytes: number): { fd: number; size: number } {
  let info;
  try {
    info = lstatSync(path);
  } catch {
    throw admissionError(`${path}: ${label} not found`);
  }
  if (info.isSymbolicLink()) {
    throw admissionError(`${path}: ${label} is a symlink; symlinks are refused`, "replace the link by the file itself");
  }
  if (!info.isFile()) throw admissionError(`${path}: ${label} is not a regular file`);
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  const size = fstatSync(fd).size;
  if (size > maxBytes) {
    closeSync(fd);
    throw admissionError(`${path}: ${label} is ${size} bytes, larger than the limit of ${maxBytes} bytes`);
  }
  return { fd, size };
}

function readUtf8(fd: number, size: number, path: string): string {
  const bytes = new Uint8Array(size);
  let read = 0;
  while (read < size) {
    const n = readSync(fd, bytes, read, size - read, read);
    if (n === 0) break;
    read += n;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, read));
  } catch {
    throw new PrxError("PLUGIN_MANIFEST", `${path}: ${MANIFEST_FILE} is not valid UTF-8`, {
      hint: "save the manifest as UTF-8",
    });
  }
}

/** Read plugin.toml: <= MANIFEST_MAX_BYTES, not a symlink, valid UTF-8. */
export function readManifestFile(path: string): string {
  const { fd, size } = openRegularFile(path, MANIFEST_FILE, MANIFEST_MAX_BYTES);
  try {
    return readUtf8(fd, size, path);
  } finally {
    closeSync(fd);
  }
}

/** The stamp of a regular file (not a symlink) at `path`, or null: then the file is read with every check. */
function regularFileStamp(path: string): string | null {
  try {
    const info = lstatSync(path, { bigint: true });
    return info.isFile() ? fileStamp(info) : null;
  } catch {
    return null;
  }
}

/** Read and parse plugin.toml with the checks of readManifestFile; an unchanged file's parse comes from `cache`. */
function readParsedManifest(path: string, cache: DiscoveryCache | undefined): ParsedManifest {
  const seen = cache ? regularFileStamp(path) : null;
  const hit = seen === null ? undefined : cache?.manifests.get(path, seen);
  if (hit) return hit;
  const { fd, size } = openRegularFile(path, MANIFEST_FILE, MANIFEST_MAX_BYTES);
  try {
    const stamp = cache ? fileStamp(fstatSync(fd, { bigint: true })) : "";
    const parsed = parseManifest(readUtf8(fd, size, path), path);
    cache?.manifests.set(path, stamp, parsed);
    return parsed;
  } finally {
    closeSync(fd);
  }
}

/**
 * Resolve a manifest-relative path inside the plugin directory: no absolute path, no `..` segment, and the
 * canonical result must stay inside `dir` (a symlinked parent directory cannot lead out).
 */
export function resolveInsidePlugin(dir: string, relative: string, key: string, manifestPath: string): string {
  const segments = relative.split(/[\\/]+/);
  if (isAbsolute(relative) || /^[A-Za-z]:/.test(relative) || segments.includes("..")) {
    throw admissionError(
      `${manifestPath}: "${key}" = "${relative}" escapes the plugin directory`,
      "use a path relative to the plugin directory without .. segments",
    );
  }
  const full = join(dir, normalize(relative));
  if (!existsSync(full) && !isSymlink(full)) throw admissionError(`${manifestPath}: "${key}" = "${relative}": ${full} not found`);
  // a file directly in the (canonical) plugin directory has no parent to resolve
  if (join(full, "..") === dir) return full;
  let parent: string;
  try {
    parent = realpathSync(join(full, ".."));
  } catch (cause) {
    throw toPrxError(cause, "PLUGIN_ADMISSION", `${manifestPath}: "${key}"`);
  }
  if (parent !== dir && !parent.startsWith(dir + sep)) {
    throw admissionError(`${manifestPath}: "${key}" = "${relative}" resolves outside the plugin directory`);
  }
  return full;
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Component vs core module from the 8-byte header: magic, then version (u16 LE) and layer (u16 LE). */
export function detectWasmKind(header: Uint8Array, path: string): "wasm-component" | "wasm-module" {
  const magic = header[0] === 0x00 && header[1] === 0x61 && header[2] === 0x73 && header[3] === 0x6d;
  if (header.length < WASM_HEADER_BYTES || !magic) {
    throw new PrxError("PLUGIN_LOAD", `${path}: not a WebAssembly file (bad magic)`, {
      hint: "build the plugin to a .wasm component or core module",
    });
  }
  const version = header[4]! | (header[5]! << 8);
  const layer = header[6]! | (header[7]! << 8);
  if (layer === 1) return "wasm-component";
  if (layer === 0 && version === 1) return "wasm-module";
  throw new PrxError("PLUGIN_LOAD", `${path}: unsupported WebAssembly version ${version} layer ${layer}`);
}

function checkEntryFile(path: string, label: string, cache: DiscoveryCache | undefined): { header: Uint8Array; stamp?: string } {
  const seen = cache ? regularFileStamp(path) : null;
  const hit = seen === null ? undefined : cache?.headers.get(path, seen);
  if (hit) return { header: hit, stamp: seen! };
  const { fd, size } = openRegularFile(path, label, WASM_MAX_BYTES);
  try {
    const header = new Uint8Array(Math.min(WASM_HEADER_BYTES, size));
    readSync(fd, header, 0, header.length, 0);
    if (!cache) return { header };
    const stamp = fileStamp(fstatSync(fd, { bigint: true }));
    cache.headers.set(path, stamp, header);
    return { header, stamp };
  } finally {
    closeSync(fd);
  }
}

/**
 * The entry file named by the manifest, checked (inside the plugin directory, a regular file within its limit) and
 * its header read. An unchanged file directly in the plugin directory, the common case, costs one lstat: its
 * stamp finds what the last discovery read and checked.
 */
function entryFile(dir: string, relative: string, key: string, manifestPath: string, label: string, cache: DiscoveryCache | undefined) {
  if (cache && !isAbsolute(relative) && !/[\\/]/.test(relative) && relative !== ".." && relative !== "." && !/^[A-Za-z]:/.test(relative)) {
    const full = join(dir, relative);
    const seen = regularFileStamp(full);
    const header = seen === null ? undefined : cache.headers.get(full, seen);
    if (header) return { entryPath: full, header, stamp: seen! };
  }
  const entryPath = resolveInsidePlugin(dir, relative, key, manifestPath);
  return { entryPath, ...checkEntryFile(entryPath, label, cache) };
}

/**
 * The plugin as the last discovery found it, when its manifest and entry file are the files it read then (the same
 * stamps): two lstat calls, nothing parsed or allocated. Everything discovery checks was checked on those files.
 */
function unchangedPlugin(manifestPath: string, cache: DiscoveryCache): KnownPlugin | undefined {
  const manifestStamp = regularFileStamp(manifestPath);
  const hit = manifestStamp === null ? undefined : cache.plugins.get(manifestPath, manifestStamp);
  if (!hit || regularFileStamp(hit.found.entryPath) !== hit.entryStamp) return undefined;
  cache.manifests.get(manifestPath, manifestStamp!);
  cache.headers.get(hit.found.entryPath, hit.entryStamp);
  return hit;
}

/** The plugin as the last discovery found it, its directory quiet since (dir-watch.ts): nothing read at all. */
function keptPlugin(manifestPath: string, cache: DiscoveryCache): KnownPlugin | undefined {
  const kept = cache.plugins.keep(manifestPath);
  if (!kept) return undefined;
  cache.manifests.keep(manifestPath);
  cache.headers.keep(kept.found.entryPath);
  return kept;
}

/**
 * Inspect one plugin directory: manifest, admission limits and kind. Never throws. `canonicalDir`: the directory's
 * canonical path when the caller knows it (discovery: a directory, not a symlink, in the canonical plugins/).
 */
export function inspectPluginDir(dirPath: string, dirName: string, cache?: DiscoveryCache, canonicalDir?: string): DiscoveredPlugin {
  // a directory is watched before its files are checked: a change during the check is an event for the next one
  const watch = canonicalDir !== undefined ? cache?.watch : undefined;
  const watched = watch ? watch.watch(canonicalDir!) : false;
  if (cache && canonicalDir !== undefined) {
    // canonicalDir is canonical and dirName one segment: no join needed
    const path = `${canonicalDir}/${MANIFEST_FILE}`;
    const unchanged = watch?.quiet(canonicalDir) ? keptPlugin(path, cache) : unchangedPlugin(path, cache);
    if (unchanged) {
      if (watched && unchanged.flat) watch!.checked(canonicalDir);
      return unchanged.found;
    }
  }
  let dir = dirPath;
  const manifestPath = join(dirPath, MANIFEST_FILE);
  const base = { dirName, dir, manifestPath, name: dirName, warnings: [] as string[] };
  let manifest: PluginManifest | undefined;
  try {
    dir = canonicalDir ?? realpathSync(dirPath);
    base.dir = dir;
    base.manifestPath = join(dir, MANIFEST_FILE);
    const parsed = readParsedManifest(base.manifestPath, cache);
    manifest = parsed.manifest;
    base.warnings.push(...parsed.warnings);
    base.name = manifest.plugin.name;
    const remote = manifest.plugin.runtime === "remote";
    const entry = remote
      ? entryFile(dir, manifest.remote!.entry, "remote.entry", base.manifestPath, "remote entry", cache)
      : entryFile(dir, manifest.plugin.wasm, "plugin.wasm", base.manifestPath, "wasm file", cache);
    const kind: PluginKind = remote ? "remote" : detectWasmKind(entry.header, entry.entryPath);
    const found: DiscoveredOk = { ...base, ok: true, manifest, kind, entryPath: entry.entryPath };
    if (entry.stamp !== undefined) found.entryStamp = entry.stamp;
    const manifestStamp = cache?.manifests.stampOf(base.manifestPath);
    if (cache && entry.stamp !== undefined && manifestStamp !== undefined) {
      const flat = dirname(found.entryPath) === dir;
      cache.plugins.set(base.manifestPath, manifestStamp, { found, entryStamp: entry.stamp, flat });
      if (watched && flat) watch!.checked(canonicalDir!);
    }
    return found;
  } catch (cause) {
    const error = toPrxError(cause, "PLUGIN_ADMISSION", base.manifestPath);
    const warnings = (error.details?.warnings as string[] | undefined) ?? [];
    base.warnings.push(...warnings.filter((w) => !base.warnings.includes(w)));
    return manifest ? { ...base, ok: false, error, manifest } : { ...base, ok: false, error };
  }
}

/** Refused entries past PLUGINS_DIR_MAX_ENTRIES that discovery lists one by one; the rest are counted in the last. */
export const PLUGINS_DIR_MAX_REFUSED_LISTED = 64;

/** Marks a record refused because plugins/ holds more than PLUGINS_DIR_MAX_ENTRIES entries. */
export const OVER_LIMIT = "plugins-dir-over-limit";

/** True when discovery refused this plugin only because plugins/ holds too many entries. */
export function isOverLimit(found: DiscoveredPlugin): boolean {
  return !found.ok && found.error.details?.reason === OVER_LIMIT;
}

function refused(pluginsDir: string, name: string, error: PrxError): DiscoveredError {
  const dir = join(pluginsDir, name);
  return { ok: false, dirName: name, dir, manifestPath: join(dir, MANIFEST_FILE), name, warnings: [], error };
}

function direntKind(entry: Dirent): "dir" | "symlink" | "other" | null {
  if (entry.isSymbolicLink()) return "symlink";
  if (entry.isDirectory()) return "dir";
  return entry.isFile() || entry.isFIFO() || entry.isSocket() || entry.isBlockDevice() || entry.isCharacterDevice() ? "other" : null;
}

function entryKind(path: string): "dir" | "symlink" | "other" {
  try {
    const info = lstatSync(path);
    return info.isSymbolicLink() ? "symlink" : info.isDirectory() ? "dir" : "other";
  } catch {
    return "other";
  }
}

/**
 * Every `<pluginsDir>/*` directory in sorted (code unit) order. Non-directories and dot entries are skipped but
 * count toward the entry limit. Past PLUGINS_DIR_MAX_ENTRIES entries the first ones (sorted) are inspected and every
 * entry after them comes back refused unread (`isOverLimit`; the first PLUGINS_DIR_MAX_REFUSED_LISTED by name, the
 * last one counting the rest), so a start serves what fits; a reload refuses the candidate instead (runtime.ts).
 * A symlinked plugin directory is refused like a symlinked file. With `manifests`, unchanged manifests are not parsed
 * again (manifest-cache.ts).
 */
export function discoverPlugins(pluginsDir: string, cache?: DiscoveryCache): DiscoveredPlugin[] {
  const watch = cache?.watch;
  if (watch) {
    watch.drain();
    const again = rediscover(pluginsDir, cache!, watch);
    // the cache keeps what the last full listing read; it is swept by the next one
    if (again) return again;
  }
  const found = discover(pluginsDir, cache);
  cache?.sweep();
  return found;
}

/**
 * The last listing again, when plugins/ has been quiet since (the same entries): only the plugin directories with an
 * event, and the loud ones, are inspected again; the result is the last one (the same array) when there are none.
 * Undefined: list plugins/ (no listing kept, plugins/ changed, or it now resolves elsewhere).
 */
function rediscover(pluginsDir: string, cache: DiscoveryCache, watch: PluginDirWatch): DiscoveredPlugin[] | undefined {
  const changed = watch.takeChanged();
  const last = cache.listing;
  if (!last || last.pluginsDir !== pluginsDir || !watch.quiet(last.root) || canonical(pluginsDir) !== last.root) return undefined;
  const again = new Set(last.loud);
  for (const dir of changed) if (last.dirs.has(dir)) again.add(dir);
  if (again.size === 0) return last.found;
  const found = [...last.found];
  const at: number[] = [];
  last.loud = new Set();
  for (const dir of again) {
    const listed = last.dirs.get(dir)!;
    found[listed.at] = inspectPluginDir(listed.path, listed.name, cache, dir);
    at.push(listed.at);
    if (!watch.quiet(dir)) last.loud.add(dir);
  }
  cache.derived(last.found, found, at);
  last.found = found;
  return found;
}

function canonical(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function discover(pluginsDir: string, cache: DiscoveryCache | undefined): DiscoveredPlugin[] {
  if (cache) cache.listing = null;
  if (!existsSync(pluginsDir)) return [];
  // an entry that is a directory (not a symlink) of the canonical plugins/ is canonical below it
  const root = canonical(pluginsDir);
  const watch = cache?.watch;
  // watched before it is listed: an entry added or removed meanwhile is an event for the next discovery; a plugin
  // directory replaced (or removed) under the same name is an event of plugins/ naming it
  const rootWatched = watch && root !== undefined ? watch.watch(root) : false;
  let listed: Dirent[];
  try {
    // the entry types come with the listing (no lstat per entry); an unknown type is looked up (entryKind)
    listed = readdirSync(pluginsDir, { withFileTypes: true });
  } catch (cause) {
    throw toPrxError(cause, "PLUGIN_ADMISSION", `cannot list ${pluginsDir}`);
  }
  const types = new Map(listed.map((d) => [d.name, d]));
  const entries = [...types.keys()].sort();
  const found: DiscoveredPlugin[] = [];
  const dirs = new Map<string, ListedDir>();
  const overflow: string[] = [];
  entries.forEach((name, index) => {
    if (name.startsWith(".")) return;
    // past the limit nothing is read: the entry is refused by name, whatever it is
    if (index >= PLUGINS_DIR_MAX_ENTRIES) return void overflow.push(name);
    const path = join(pluginsDir, name);
    const kind = direntKind(types.get(name)!) ?? entryKind(path);
    if (kind === "dir") {
      const dir = root === undefined ? undefined : root.endsWith(sep) ? root + name : `${root}/${name}`;
      if (dir !== undefined) dirs.set(dir, { at: found.length, path, name });
      found.push(inspectPluginDir(path, name, cache, dir));
    } else if (kind === "symlink") {
      const error = admissionError(`${path}: the plugin directory is a symlink; symlinks are refused`, "move the plugin directory itself into plugins/");
      found.push(refused(pluginsDir, name, error));
    }
  });
  overflow.slice(0, PLUGINS_DIR_MAX_REFUSED_LISTED).forEach((name, i, listed) => {
    const more = i === listed.length - 1 && overflow.length > listed.length ? ` (and ${overflow.length - listed.length} more)` : "";
    const error = new PrxError(
      "PLUGIN_ADMISSION",
      `not admitted: ${pluginsDir} holds ${entries.length} entries, more than the limit of ${PLUGINS_DIR_MAX_ENTRIES}; ` +
        `the first ${PLUGINS_DIR_MAX_ENTRIES} (sorted by name) are admitted${more}`,
      { hint: "remove unused plugin directories", details: { reason: OVER_LIMIT } },
    );
    found.push(refused(pluginsDir, name, error));
  });
  if (rootWatched) {
    const loud = new Set([...dirs.keys()].filter((dir) => !watch!.quiet(dir)));
    cache!.listing = { pluginsDir, root: root!, found, dirs, loud };
    watch!.checked(root!);
  }
  return found;
}
