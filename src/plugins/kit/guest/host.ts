// Typed wrappers over the prx:host imports every PRX world has: log, config, kv and events. (http-outbound and
// memory are only in some worlds: they live in http.ts and memory.ts, imported as @prx/kit/http and @prx/kit/memory.)
import * as hostConfig from "prx:host/config@0.1.0";
import * as hostEvents from "prx:host/events@0.1.0";
import * as hostKv from "prx:host/kv@0.1.0";
import { log as hostLog } from "prx:host/log@0.1.0";
import { decode, encode } from "./utf8.ts";

/** Lines in the plugin's log (prx's log, as `[plugin.<name>]`). */
export const log = {
  trace: (message: string): void => hostLog("trace", message),
  debug: (message: string): void => hostLog("debug", message),
  info: (message: string): void => hostLog("info", message),
  warn: (message: string): void => hostLog("warn", message),
  error: (message: string): void => hostLog("error", message),
};

/**
 * The config table, read from the host once per instance: it never changes while an instance lives (a changed
 * config loads the plugin again), and each host call costs the guest a crossing out of WebAssembly.
 */
let table: Map<string, string> | undefined;
function read(key: string): string | undefined {
  table ??= new Map(hostConfig.getAll());
  return table.get(key);
}

/** The plugin's `[config]` table, with `[plugins.<name>.config]` of config.toml over it. Read-only. */
export const config = {
  get: (key: string): string | undefined => read(key),
  getOr: (key: string, fallback: string): string => read(key) ?? fallback,
  /** A number, or `fallback` when the key is missing or not a number. */
  number(key: string, fallback: number): number {
    const text = read(key);
    const value = Number(text ?? "");
    return text === undefined || Number.isNaN(value) ? fallback : value;
  },
  /** A comma-separated list, trimmed, empty items dropped. */
  list(key: string): string[] {
    return (read(key) ?? "").split(",").map((s) => s.trim()).filter((s) => s.length > 0);
  },
  all(): Record<string, string> {
    table ??= new Map(hostConfig.getAll());
    return Object.fromEntries(table);
  },
};

/** The plugin's persistent key-value store (`data/prx.db`, quota `[resources] max_kv_storage_mb`). */
export const kv = {
  get(key: string): string | undefined {
    const bytes = hostKv.get(key);
    return bytes === null || bytes === undefined ? undefined : decode(bytes);
  },
  /** Throws the host's message when the quota is exceeded. */
  set(key: string, value: string): void {
    hostKv.set(key, encode(value));
  },
  getJson<T>(key: string): T | undefined {
    const text = kv.get(key);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  },
  setJson(key: string, value: unknown): void {
    kv.set(key, JSON.stringify(value));
  },
  getBytes: (key: string): Uint8Array | undefined => hostKv.get(key) ?? undefined,
  setBytes: (key: string, value: Uint8Array): void => hostKv.set(key, value),
  /** True when the key existed. */
  delete: (key: string): boolean => hostKv.delete(key),
  /** Keys starting with `prefix`, sorted. */
  keys: (prefix = ""): string[] => hostKv.listKeys(prefix),
  /**
   * Adds `by` to a number stored as text (missing: 0) and returns the new value. A read, then a write: not atomic
   * against another of the plugin's instances (its other capabilities, other replicas) writing the key meanwhile.
   */
  increment(key: string, by = 1): number {
    const next = Number(kv.get(key) ?? "0") + by;
    kv.set(key, String(next));
    return next;
  },
};

/** The runtime's event bus (the `events` permission must be granted in config.toml). */
export const events = {
  /** Publishes `payload` as JSON on `topic`. */
  publish: (topic: string, payload: unknown): void => hostEvents.publish(topic, JSON.stringify(payload ?? null)),
  /** Hooks only: deliver events matching `pattern` to this hook's onEvent too. Returns the subscription id. */
  subscribe: (pattern: string): number => hostEvents.subscribe(pattern),
  unsubscribe: (id: number): void => hostEvents.unsubscribe(id),
};
