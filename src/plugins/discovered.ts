import type { PrxError } from "../core/errors.ts";
import type { PluginManifest } from "./manifest.ts";
import type { PluginKind } from "./types.ts";

/** What discovery found in one directory of plugins/ (discovery.ts finds it, discovery-cache.ts keeps it). */
interface DiscoveredBase {
  /** Directory name under plugins/ (or the basename given to validate). */
  dirName: string;
  /** Canonical plugin directory. */
  dir: string;
  manifestPath: string;
  /** Manifest name when the manifest parsed, else the directory name. */
  name: string;
  warnings: string[];
}

export interface DiscoveredOk extends DiscoveredBase {
  ok: true;
  manifest: PluginManifest;
  kind: PluginKind;
  /** Canonical path of the wasm file or remote entry. */
  entryPath: string;
  /** The entry file's stamp (discovery-cache.ts) when discovery had a cache: what its content hash is kept by. */
  entryStamp?: string;
}

export interface DiscoveredError extends DiscoveredBase {
  ok: false;
  error: PrxError;
  manifest?: PluginManifest;
}

export type DiscoveredPlugin = DiscoveredOk | DiscoveredError;
