import { Database } from "bun:sqlite";
import { join } from "node:path";

/** A plugin's KV value as text, read from a workspace's database (null when absent). */
export function pluginKv(root: string, plugin: string, key: string): string | null {
  const db = new Database(join(root, "data", "prx.db"), { readonly: true });
  try {
    const row = db
      .query<{ value: Uint8Array }, [string, string]>("SELECT value FROM plugin_kv WHERE plugin = ? AND key = ?")
      .get(plugin, key);
    return row ? new TextDecoder().decode(row.value) : null;
  } finally {
    db.close();
  }
}
