import type { Database } from "bun:sqlite";
import { PrxError } from "../../core/errors.ts";
import { KV_DDL } from "../wasm/host/kv.ts";
import { MAX_KV_KEY_BYTES } from "../wasm/limits.ts";

/**
 * runtime.getCache / setCache / deleteCache: JSON values in the plugin KV of the workspace database (the `plugin_kv`
 * table WASM plugins' kv uses, one namespace per plugin name), under the plugin's `max_kv_storage_mb` quota.
 */
export class RemoteCacheStore {
  private readonly q;

  constructor(private readonly db: Database) {
    db.exec(KV_DDL);
    this.q = {
      get: db.query<{ value: Uint8Array }, [string, string]>("SELECT value FROM plugin_kv WHERE plugin = ? AND key = ?"),
      used: db.query<{ used: number }, [string, string]>(
        "SELECT COALESCE(SUM(length(CAST(key AS BLOB)) + length(value)), 0) AS used FROM plugin_kv WHERE plugin = ? AND key <> ?",
      ),
      put: db.query("INSERT OR REPLACE INTO plugin_kv (plugin, key, value) VALUES (?, ?, ?)"),
      delete: db.query("DELETE FROM plugin_kv WHERE plugin = ? AND key = ?"),
    };
  }

  get(plugin: string, key: string): unknown {
    const row = this.q.get.get(plugin, key);
    return row ? (JSON.parse(new TextDecoder().decode(row.value)) as unknown) : undefined;
  }

  set(plugin: string, key: string, value: unknown, quotaBytes: number): void {
    checkKey(plugin, key);
    const bytes = new TextEncoder().encode(JSON.stringify(value ?? null));
    const size = Buffer.byteLength(key) + bytes.byteLength;
    this.db
      .transaction(() => {
        const used = this.q.used.get(plugin, key)!.used;
        if (used + size > quotaBytes) {
          throw new PrxError(
            "LIMIT_EXCEEDED",
            `setCache(${JSON.stringify(key.slice(0, 40))}) of plugin ${plugin}: ${used + size} bytes > its kv quota of ${quotaBytes} bytes`,
            { hint: "delete entries with runtime.deleteCache, or raise [resources] max_kv_storage_mb in plugin.toml" },
          );
        }
        this.q.put.run(plugin, key, bytes);
      })
      .immediate();
  }

  delete(plugin: string, key: string): boolean {
    return this.q.delete.run(plugin, key).changes > 0;
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
