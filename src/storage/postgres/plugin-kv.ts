import type { SQL } from "bun";
import { checkKvKey, quotaExceeded } from "../kv-rules.ts";
import type { PluginKvStore } from "../types.ts";
import { pg } from "./connect.ts";

/**
 * Plugin key/value pairs in PostgreSQL. A write locks the plugin's namespace (a transaction advisory lock on its
 * name) while it checks the quota, so writers on several replicas cannot pass it together.
 */
export class PgPluginKvStore implements PluginKvStore {
  constructor(private readonly sql: SQL) {}

  get(plugin: string, key: string): Promise<Uint8Array | undefined> {
    return pg("kv get", async () => {
      const rows = await this.sql.unsafe("SELECT value FROM plugin_kv WHERE plugin = $1 AND key = $2", [plugin, key]);
      return rows[0] ? new Uint8Array(rows[0].value) : undefined;
    });
  }

  async set(plugin: string, key: string, value: Uint8Array, quotaBytes: number): Promise<void> {
    checkKvKey(plugin, key);
    const size = Buffer.byteLength(key) + value.byteLength;
    await pg("kv set", () =>
      this.sql.begin(async (tx) => {
        await tx.unsafe("SELECT pg_advisory_xact_lock(hashtext('prx.kv'), hashtext($1))", [plugin]);
        const used = Number(
          (
            await tx.unsafe(
              "SELECT COALESCE(SUM(octet_length(key) + octet_length(value)), 0)::bigint AS used FROM plugin_kv WHERE plugin = $1 AND key <> $2",
              [plugin, key],
            )
          )[0].used,
        );
        if (used + size > quotaBytes) throw quotaExceeded(plugin, key, used + size, quotaBytes);
        await tx.unsafe(
          "INSERT INTO plugin_kv (plugin, key, value) VALUES ($1, $2, $3) ON CONFLICT (plugin, key) DO UPDATE SET value = excluded.value",
          [plugin, key, value],
        );
      }),
    );
  }

  delete(plugin: string, key: string): Promise<boolean> {
    return pg("kv delete", async () => (await this.sql.unsafe("DELETE FROM plugin_kv WHERE plugin = $1 AND key = $2", [plugin, key])).count > 0);
  }

  listKeys(plugin: string, prefix: string, limit: number): Promise<string[]> {
    return pg("kv list", async () =>
      (
        (await this.sql.unsafe(
          "SELECT key FROM plugin_kv WHERE plugin = $1 AND left(key, length($2)) = $2 ORDER BY key COLLATE \"C\" LIMIT $3",
          [plugin, prefix, limit],
        )) as Array<{ key: string }>
      ).map((r) => r.key),
    );
  }
}
