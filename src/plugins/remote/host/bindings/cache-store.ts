import { PrxError } from "../../../../core/errors.ts";
import type { PluginKvStore } from "../../../../storage/types.ts";
import { MAX_KV_KEY_BYTES } from "../../../wasm/limits.ts";

/**
 * runtime.getCache / setCache / deleteCache: JSON values in the plugin KV store (the `plugin_kv` table WASM plugins'
 * kv uses, one namespace per plugin name; PostgreSQL with `[storage] backend = "postgres"`), under the plugin's
 * `max_kv_storage_mb` quota.
 */
export class RemoteCacheStore {
  constructor(private readonly kv: PluginKvStore) {}

  async get(plugin: string, key: string): Promise<unknown> {
    const value = await this.kv.get(plugin, key);
    return value ? (JSON.parse(new TextDecoder().decode(value)) as unknown) : undefined;
  }

  async set(plugin: string, key: string, value: unknown, quotaBytes: number): Promise<void> {
    checkKey(plugin, key);
    const bytes = new TextEncoder().encode(JSON.stringify(value ?? null));
    try {
      await this.kv.set(plugin, key, bytes, quotaBytes);
    } catch (error) {
      if (!(error instanceof PrxError) || error.code !== "LIMIT_EXCEEDED") throw error;
      throw new PrxError("LIMIT_EXCEEDED", `setCache(${JSON.stringify(key.slice(0, 40))}): ${error.message}`, {
        cause: error,
        hint: "delete entries with runtime.deleteCache, or raise [resources] max_kv_storage_mb in plugin.toml",
      });
    }
  }

  async delete(plugin: string, key: string): Promise<boolean> {
    return this.kv.delete(plugin, key);
  }
}

function checkKey(plugin: string, key: string): void {
  if (key.length === 0) throw new PrxError("BAD_REQUEST", `setCache of plugin ${plugin}: the key is empty`);
  if (Buffer.byteLength(key) > MAX_KV_KEY_BYTES) {
    throw new PrxError("LIMIT_EXCEEDED", `setCache of plugin ${plugin}: key longer than ${MAX_KV_KEY_BYTES} bytes`, {
      hint: "use a shorter key (a hash of a long one)",
    });
  }
}
