import { PrxError } from "../core/errors.ts";
import { KV_KEY_MAX_BYTES } from "./limits.ts";

export function checkKvKey(plugin: string, key: string): void {
  if (key.length === 0) throw new PrxError("BAD_REQUEST", `kv of plugin ${plugin}: the key is empty`);
  if (Buffer.byteLength(key) > KV_KEY_MAX_BYTES) {
    throw new PrxError("LIMIT_EXCEEDED", `kv of plugin ${plugin}: key longer than ${KV_KEY_MAX_BYTES} bytes`, {
      hint: "use a shorter key (a hash of a long one)",
    });
  }
}

export function quotaExceeded(plugin: string, key: string, total: number, quotaBytes: number): PrxError {
  return new PrxError(
    "LIMIT_EXCEEDED",
    `kv of plugin ${plugin}: storing ${JSON.stringify(key.slice(0, 40))} would use ${total} bytes > its kv quota of ${quotaBytes} bytes`,
    { hint: "delete keys, or raise [resources] max_kv_storage_mb in plugin.toml", details: { bytes: total, quotaBytes } },
  );
}
