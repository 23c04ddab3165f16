import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { errorMessage } from "../../../core/errors.ts";
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
  const folder = join(cacheDir, "remote-plugins");
  const pathOf = (plugin: string) => join(folder, `${plugin}.json`);
  return {
    read(plugin, key) {
      let text: string;
      try {
        text = readFileSync(pathOf(plugin), "utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
          logger.warn(`cannot read the cached descriptor of remote plugin "${plugin}"; it starts to announce itself`, {
            error: errorMessage(error),
          });
        }
        return null;
      }
      let parsed: ReturnType<typeof CacheFileSchema.safeParse>;
      try {
        parsed = CacheFileSchema.safeParse(JSON.parse(text));
      } catch (error) {
        logger.warn(`the cached descriptor of remote plugin "${plugin}" is not JSON; it starts to announce itself`, {
          error: errorMessage(error),
        });
        return null;
      }
      // another version of prx's cache or protocol is not an error: the plugin announces itself again
      if (!parsed.success) return null;
      return parsed.data.key === key ? parsed.data.descriptor : null;
    },
    write(plugin, key, descriptor) {
      const path = pathOf(plugin);
      const temporary = `${path}.${process.pid}.tmp`;
      try {
        mkdirSync(folder, { recursive: true });
        const file = { version: DESCRIPTOR_CACHE_VERSION, protocol: REMOTE_PROTOCOL_VERSION, key, descriptor };
        writeFileSync(temporary, JSON.stringify(file), { mode: 0o600 });
        renameSync(temporary, path);
      } catch (error) {
        logger.warn(`cannot cache the descriptor of remote plugin "${plugin}" (it starts at the next load)`, {
          error: errorMessage(error),
        });
      }
    },
  };
}
