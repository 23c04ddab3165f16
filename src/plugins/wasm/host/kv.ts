import { errorMessage, PrxError } from "../../../core/errors.ts";
import { openSqliteStorage, type SqliteStorage } from "../../../storage/open.ts";
import { MAX_KV_KEY_BYTES, MAX_KV_LIST_KEYS } from "../limits.ts";
import type { GuestKv } from "./types.ts";
import { type HostContext } from "./context.ts";
import { HostError } from "./errors.ts";

/**
 * prx:host/kv — per-plugin persistent key/value pairs in the workspace SQLite file, quota max_kv_storage_mb. A
 * sandbox runs on its own thread, so it opens its own storage on the file; on first use: most plugins never touch
 * kv, and a sandbox should start without SQLite.
 */
export class KvStore implements GuestKv {
  private opened: SqliteStorage | null = null;
  private readonly quotaBytes: number;

  constructor(
    private readonly dbPath: string,
    private readonly plugin: string,
    quotaMb: number,
  ) {
    this.quotaBytes = Math.floor(quotaMb * 1024 * 1024);
  }

  private get store() {
    if (this.opened) return this.opened.pluginKv;
    try {
      this.opened = openSqliteStorage(this.dbPath);
      return this.opened.pluginKv;
    } catch (error) {
      throw new HostError(`kv of plugin ${this.plugin}: cannot open ${this.dbPath}: ${errorMessage(error)}`);
    }
  }

  get(key: string): Uint8Array | undefined {
    return this.store.get(this.plugin, key);
  }

  set(key: string, value: Uint8Array): void {
    checkKey(key);
    try {
      this.store.set(this.plugin, key, value, this.quotaBytes);
    } catch (error) {
      // the guest sees a host error (an error result), worded for its author
      if (error instanceof PrxError && error.code === "LIMIT_EXCEEDED" && typeof error.details?.bytes === "number") {
        throw new HostError(
          `kv quota exceeded for plugin ${this.plugin}: ${error.details.bytes} bytes > max_kv_storage_mb (${this.quotaBytes} bytes); ` +
            "delete keys or raise [resources] max_kv_storage_mb",
        );
      }
      throw error;
    }
  }

  delete(key: string): boolean {
    return this.store.delete(this.plugin, key);
  }

  listKeys(prefix: string): string[] {
    return this.store.listKeys(this.plugin, prefix, MAX_KV_LIST_KEYS);
  }

  close(): void {
    void this.opened?.close();
    this.opened = null;
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
