import type { Database } from "bun:sqlite";
import { checkKvKey, quotaExceeded } from "../kv-rules.ts";
import type { PluginKvStore } from "../types.ts";
import { migrateSqlite } from "./schema.ts";

/**
 * Plugin key/value pairs in the workspace database's `plugin_kv` table, one namespace per plugin. A write is one
 * statement that inserts only while the plugin stays within its quota (one statement is one transaction in SQLite:
 * no BEGIN/COMMIT pair around a check and an insert); the usage is read again only to word a refusal.
 */
export class SqlitePluginKvStore implements PluginKvStore {
  private readonly q;

  constructor(private readonly db: Database) {
    migrateSqlite(db);
    this.q = {
      get: db.query<{ value: Uint8Array }, [string, string]>("SELECT value FROM plugin_kv WHERE plugin = ? AND key = ?"),
      used: db.query<{ used: number }, [string, string]>(
        "SELECT COALESCE(SUM(length(CAST(key AS BLOB)) + length(value)), 0) AS used FROM plugin_kv WHERE plugin = ? AND key <> ?",
      ),
      putWithin: db.query<unknown, [string, string, Uint8Array, number]>(
        "INSERT OR REPLACE INTO plugin_kv (plugin, key, value) SELECT ?1, ?2, ?3 WHERE " +
          "(SELECT COALESCE(SUM(length(CAST(key AS BLOB)) + length(value)), 0) FROM plugin_kv WHERE plugin = ?1 AND key <> ?2) <= ?4",
      ),
      delete: db.query("DELETE FROM plugin_kv WHERE plugin = ? AND key = ?"),
      keys: db.query<{ key: string }, [string, string, number]>(
        "SELECT key FROM plugin_kv WHERE plugin = ?1 AND substr(key, 1, length(?2)) = ?2 ORDER BY key LIMIT ?3",
      ),
    };
  }

  get(plugin: string, key: string): Uint8Array | undefined {
    const row = this.q.get.get(plugin, key);
    return row ? new Uint8Array(row.value) : undefined;
  }

  set(plugin: string, key: string, value: Uint8Array, quotaBytes: number): void {
    checkKvKey(plugin, key);
    const size = Buffer.byteLength(key) + value.byteLength;
    if (size <= quotaBytes && this.q.putWithin.run(plugin, key, value, quotaBytes - size).changes > 0) return;
    throw quotaExceeded(plugin, key, this.q.used.get(plugin, key)!.used + size, quotaBytes);
  }

  delete(plugin: string, key: string): boolean {
    return this.q.delete.run(plugin, key).changes > 0;
  }

  listKeys(plugin: string, prefix: string, limit: number): string[] {
    return this.q.keys.all(plugin, prefix, limit).map((r) => r.key);
  }
}
