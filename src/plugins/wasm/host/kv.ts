import { Database } from "bun:sqlite";
import { MAX_KV_KEY_BYTES, MAX_KV_LIST_KEYS } from "../limits.ts";
import type { GuestKv } from "./types.ts";
import { type HostContext } from "./context.ts";
import { HostError } from "./errors.ts";

/** prx:host/kv — per-plugin persistent key/value pairs in the workspace SQLite db, quota max_kv_storage_mb. */
export const KV_DDL = `CREATE TABLE IF NOT EXISTS plugin_kv (
  plugin TEXT NOT NULL,
  key TEXT NOT NULL,
  value BLOB NOT NULL,
  PRIMARY KEY (plugin, key)
) WITHOUT ROWID;`;

/** Opens its connection on first use: most plugins never touch kv, and a sandbox should start without SQLite. */
export class KvStore implements GuestKv {
  private connection: Database | null = null;
  private readonly quotaBytes: number;

  constructor(
    private readonly dbPath: string,
    private readonly plugin: string,
    quotaMb: number,
  ) {
    this.quotaBytes = Math.floor(quotaMb * 1024 * 1024);
  }

  private get db(): Database {
    if (this.connection) return this.connection;
    let db: Database | null = null;
    try {
      db = new Database(this.dbPath, { create: true, strict: true });
      db.exec("PRAGMA busy_timeout = 5000");
      db.exec("PRAGMA journal_mode = WAL");
      db.exec(KV_DDL);
    } catch (error) {
      db?.close();
      throw new HostError(`kv of plugin ${this.plugin}: cannot open ${this.dbPath}: ${(error as Error).message}`);
    }
    this.connection = db;
    return db;
  }

  get(key: string): Uint8Array | undefined {
    const row = this.db
      .query<{ value: Uint8Array }, [string, string]>("SELECT value FROM plugin_kv WHERE plugin = ? AND key = ?")
      .get(this.plugin, key);
    return row ? new Uint8Array(row.value) : undefined;
  }

  set(key: string, value: Uint8Array): void {
    checkKey(key);
    const size = Buffer.byteLength(key) + value.byteLength;
    const tx = this.db.transaction(() => {
      const used = this.db
        .query<{ used: number }, [string, string]>(
          "SELECT COALESCE(SUM(length(CAST(key AS BLOB)) + length(value)), 0) AS used FROM plugin_kv WHERE plugin = ? AND key <> ?",
        )
        .get(this.plugin, key)!.used;
      if (used + size > this.quotaBytes) {
        throw new HostError(
          `kv quota exceeded for plugin ${this.plugin}: ${used + size} bytes > max_kv_storage_mb (${this.quotaBytes} bytes); ` +
            "delete keys or raise [resources] max_kv_storage_mb",
        );
      }
      this.db
        .query("INSERT OR REPLACE INTO plugin_kv (plugin, key, value) VALUES (?, ?, ?)")
        .run(this.plugin, key, value);
    });
    tx.immediate();
  }

  delete(key: string): boolean {
    return this.db.query("DELETE FROM plugin_kv WHERE plugin = ? AND key = ?").run(this.plugin, key).changes > 0;
  }

  listKeys(prefix: string): string[] {
    return this.db
      .query<{ key: string }, [string, string, number]>(
        "SELECT key FROM plugin_kv WHERE plugin = ?1 AND substr(key, 1, length(?2)) = ?2 ORDER BY key LIMIT ?3",
      )
      .all(this.plugin, prefix, MAX_KV_LIST_KEYS)
      .map((r) => r.key);
  }

  close(): void {
    this.connection?.close();
    this.connection = null;
  }
}

function checkKey(key: string): void {
  if (key.length === 0) throw new HostError("kv key must not be empty");
  if (Buffer.byteLength(key) > MAX_KV_KEY_BYTES) throw new HostError(`kv key longer than ${MAX_KV_KEY_BYTES} bytes`);
}

/** The component-facing functions (jco JS mapping). kv is auto-granted. */
export function kvImports(ctx: HostContext) {
  return {
    get: (key: string) => ctx.kv.get(key),
    set: (key: string, value: Uint8Array) => ctx.kv.set(key, value),
    delete: (key: string) => ctx.kv.delete(key),
    listKeys: (prefix: string) => ctx.kv.listKeys(prefix),
  };
}
