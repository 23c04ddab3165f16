import { join } from "node:path";
import { z } from "zod";
import { pluginCacheFile } from "../../cache-file.ts";
import type { Logger } from "../../../core/logger.ts";
import { REMOTE_PROTOCOL_VERSION } from "../limits.ts";
import { PluginDescriptorSchema, type PluginDescriptor } from "../protocol/index.ts";

/** Bumped when what a cached descriptor means changes (a new field the host relies on). */
export const DESCRIPTOR_CACHE_VERSION = 1;

/**
 * `<workspace>/cache/remote-plugins/<plugin>.json`: the descriptor a remote plugin announced (with what init added),
 * under the key of what it was announced from (descriptorKey). One file per plugin: a changed plugin replaces it.
 */
const CacheFileSchema = z.object({
  version: z.literal(DESCRIPTOR_CACHE_VERSION),
  protocol: z.literal(REMOTE_PROTOCOL_VERSION),
  key: z.string().min(1),
  descriptor: PluginDescriptorSchema,
});

export interface DescriptorCache {
  /** The descriptor cached under `key`, or null (none, another key, or a damaged file, which is logged). */
  read(plugin: string, key: string): PluginDescriptor | null;
  write(plugin: string, key: string, descriptor: PluginDescriptor): void;
}

export function descriptorCache(cacheDir: string, logger: Logger): DescriptorCache {
  const fileOf = (plugin: string) =>
    pluginCacheFile(join(cacheDir, "remote-plugins", `${plugin}.json`), `the cached descriptor of remote plugin "${plugin}"`, logger);
  return {
    read(plugin, key) {
      const parsed = CacheFileSchema.safeParse(fileOf(plugin).read());
      // none, or another version of prx's cache or protocol: not an error, the plugin announces itself again
      if (!parsed.success) return null;
      return parsed.data.key === key ? parsed.data.descriptor : null;
    },
    write(plugin, key, descriptor) {
      fileOf(plugin).write({ version: DESCRIPTOR_CACHE_VERSION, protocol: REMOTE_PROTOCOL_VERSION, key, descriptor });
    },
  };
}
