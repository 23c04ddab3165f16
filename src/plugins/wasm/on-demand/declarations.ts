import { join } from "node:path";
import { z } from "zod";
import { pluginCacheFile } from "../../cache-file.ts";
import { sha256Hex } from "../../../core/ids.ts";
import type { Logger } from "../../../core/logger.ts";
import type { AdmittedPlugin, CapabilityRef, CapabilityType } from "../../types.ts";

/** Bumped when what a cached declaration means changes. */
export const DECLARATION_CACHE_VERSION = 1;

/**
 * The exports a host calls to build a capability's adapter, whose answers describe the capability (a tool's spec, a
 * provider's or storage's name): they are what a generation needs of a guest before its first real call. Middleware,
 * hooks and cron jobs are described by the manifest alone.
 */
const DECLARING_EXPORTS: Partial<Record<CapabilityType, string>> = { tool: "get-spec", provider: "name", storage: "name" };

/** `tool/notes/get-spec`: the answer's name in the cache, or null when `fn` of that capability declares nothing. */
export function declarationName(capability: CapabilityRef, fn: string): string | null {
  return DECLARING_EXPORTS[capability.type] === fn ? `${capability.type}/${capability.name}/${fn}` : null;
}

/** How many declaring exports the plugin's capabilities have: the cache is complete once each was answered. */
export function declarationCount(plugin: AdmittedPlugin): number {
  return plugin.capabilities.filter((c) => DECLARING_EXPORTS[c.type] !== undefined).length;
}

/**
 * The key a WASM plugin's declarations are cached under: the component's content hash and everything the guest's
 * start and its answers may depend on (capabilities, resources, grants, config, allowlist).
 */
export function declarationKey(plugin: AdmittedPlugin, codeHash: string): string {
  const config = Object.entries(plugin.config).sort(([a], [b]) => (a < b ? -1 : 1));
  return sha256Hex(
    JSON.stringify({
      code: codeHash,
      kind: plugin.kind,
      capabilities: plugin.capabilities,
      resources: plugin.resources,
      granted: [...plugin.granted].sort(),
      config,
      allowlist: plugin.httpAllowlist,
    }),
  );
}

/**
 * `<workspace>/cache/wasm-plugins/<plugin>.json`, beside the remote plugins' descriptors (cache/remote-plugins/): the
 * answers a WASM plugin's declaring exports gave, under declarationKey. One file per plugin: a changed plugin
 * replaces it.
 */
const CacheFileSchema = z.object({
  version: z.literal(DECLARATION_CACHE_VERSION),
  key: z.string().min(1),
  answers: z.record(z.string(), z.unknown()),
});

export type Declarations = Record<string, unknown>;

export interface DeclarationCache {
  /** The answers cached under `key`, or null (none, another key, or a damaged file, which is logged). */
  read(plugin: string, key: string): Declarations | null;
  write(plugin: string, key: string, answers: Declarations): void;
}

export function declarationCache(cacheDir: string, logger: Logger): DeclarationCache {
  const fileOf = (plugin: string) =>
    pluginCacheFile(join(cacheDir, "wasm-plugins", `${plugin}.json`), `the cached declarations of plugin "${plugin}"`, logger);
  return {
    read(plugin, key) {
      const parsed = CacheFileSchema.safeParse(fileOf(plugin).read());
      // none, or another version of the cache: not an error, the plugin declares itself again
      if (!parsed.success) return null;
      return parsed.data.key === key ? parsed.data.answers : null;
    },
    write(plugin, key, answers) {
      fileOf(plugin).write({ version: DECLARATION_CACHE_VERSION, key, answers });
    },
  };
}
