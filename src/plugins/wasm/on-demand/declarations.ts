import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { errorMessage } from "../../../core/errors.ts";
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
  const folder = join(cacheDir, "wasm-plugins");
  const pathOf = (plugin: string) => join(folder, `${plugin}.json`);
  return {
    read(plugin, key) {
      let text: string;
      try {
        text = readFileSync(pathOf(plugin), "utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
          logger.warn(`cannot read the cached declarations of plugin "${plugin}"; it starts now to declare them`, {
            error: errorMessage(error),
          });
        }
        return null;
      }
      let parsed: ReturnType<typeof CacheFileSchema.safeParse>;
      try {
        parsed = CacheFileSchema.safeParse(JSON.parse(text));
      } catch (error) {
        logger.warn(`the cached declarations of plugin "${plugin}" are not JSON; it starts now to declare them`, {
          error: errorMessage(error),
        });
        return null;
      }
      // another version of the cache is not an error: the plugin declares itself again
      if (!parsed.success) return null;
      return parsed.data.key === key ? parsed.data.answers : null;
    },
    write(plugin, key, answers) {
      const path = pathOf(plugin);
      const temporary = `${path}.${process.pid}.tmp`;
      try {
        mkdirSync(folder, { recursive: true });
        writeFileSync(temporary, JSON.stringify({ version: DECLARATION_CACHE_VERSION, key, answers }), { mode: 0o600 });
        renameSync(temporary, path);
      } catch (error) {
        logger.warn(`cannot cache the declarations of plugin "${plugin}" (it starts at the next load)`, {
          error: errorMessage(error),
        });
      }
    },
  };
}
