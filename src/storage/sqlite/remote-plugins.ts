import type { Database } from "bun:sqlite";
import type { RemoteMemoryFilter, RemotePluginStore } from "../types.ts";
import { ensureSchema } from "./database.ts";

const DDL = `
CREATE TABLE IF NOT EXISTS remote_plugin_settings (
  plugin TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, updated_at TEXT NOT NULL,
  PRIMARY KEY (plugin, key)
);
CREATE TABLE IF NOT EXISTS remote_plugin_memories (
  plugin TEXT NOT NULL, id TEXT NOT NULL, table_name TEXT NOT NULL, json TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
  PRIMARY KEY (plugin, id)
);
`;

/** Remote plugins' settings and elizaOS memory objects in the workspace SQLite file (tables made on first use). */
export class SqliteRemotePluginStore implements RemotePluginStore {
  private readonly q;

  constructor(private readonly db: Database) {
    ensureSchema(db, "remote-plugins", DDL);
    this.q = {
      getSetting: db.prepare<{ value: string }, [string, string]>(
        "SELECT value FROM remote_plugin_settings WHERE plugin = ? AND key = ?",
      ),
      countSettings: db.prepare<{ n: number; bytes: number }, [string, string]>(
        `SELECT count(*) AS n, COALESCE(SUM(length(CAST(key AS BLOB)) + length(CAST(value AS BLOB))), 0) AS bytes
       FROM remote_plugin_settings WHERE plugin = ? AND key <> ?`,
      ),
      allSettings: db.prepare<{ key: string; value: string }, [string]>(
        "SELECT key, value FROM remote_plugin_settings WHERE plugin = ?",
      ),
      setSetting: db.prepare<never, [string, string, string, string]>(
        `INSERT INTO remote_plugin_settings (plugin, key, value, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(plugin, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      ),
      getMemory: db.prepare<{ json: string }, [string, string]>(
        "SELECT json FROM remote_plugin_memories WHERE plugin = ? AND id = ?",
      ),
      putMemory: db.prepare<never, [string, string, string, string, string, string]>(
        `INSERT INTO remote_plugin_memories (plugin, id, table_name, json, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(plugin, id) DO UPDATE SET
         table_name = excluded.table_name, json = excluded.json, updated_at = excluded.updated_at`,
      ),
    };
  }

  setting(plugin: string, key: string): string | undefined {
    return this.q.getSetting.get(plugin, key)?.value;
  }

  settingsBesides(plugin: string, key: string): { n: number; bytes: number } {
    return this.q.countSettings.get(plugin, key) ?? { n: 0, bytes: 0 };
  }

  settings(plugin: string): Array<{ key: string; value: string }> {
    return this.q.allSettings.all(plugin);
  }

  putSetting(plugin: string, key: string, value: string, at: string): void {
    this.q.setSetting.run(plugin, key, value, at);
  }

  memory(plugin: string, id: string): string | undefined {
    return this.q.getMemory.get(plugin, id)?.json;
  }

  putMemory(plugin: string, id: string, table: string, json: string, at: string): void {
    this.q.putMemory.run(plugin, id, table, json, at, at);
  }

  memories(plugin: string, filter: RemoteMemoryFilter, limit: number): string[] {
    const where = ["plugin = ?", "table_name = ?"];
    const args: Array<string | number> = [plugin, filter.tableName];
    if (filter.roomId !== undefined) (where.push("json_extract(json, '$.roomId') = ?"), args.push(filter.roomId));
    if (filter.entityId !== undefined) (where.push("json_extract(json, '$.entityId') = ?"), args.push(filter.entityId));
    if (filter.start !== undefined) (where.push("json_extract(json, '$.createdAt') >= ?"), args.push(filter.start));
    if (filter.end !== undefined) (where.push("json_extract(json, '$.createdAt') <= ?"), args.push(filter.end));
    if (filter.unique === true) where.push("json_extract(json, '$.unique') = 1");
    const sql =
      `SELECT json FROM remote_plugin_memories WHERE ${where.join(" AND ")} ` +
      `ORDER BY json_extract(json, '$.createdAt') DESC, rowid DESC LIMIT ?`;
    return this.db
      .query<{ json: string }, Array<string | number>>(sql)
      .all(...args, limit)
      .map((row) => row.json);
  }
}
