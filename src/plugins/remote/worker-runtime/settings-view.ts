import type { JsonValue } from "./types.ts";

/**
 * What runtime.getSetting reads, synchronously as in elizaOS: this worker's own setSetting writes, else the values
 * persisted for the plugin (read once when the worker starts), else the plugin's settings from the manifest and
 * config.toml, else null. Strings "true" and "false" read as booleans, as elizaOS's getSetting returns them.
 */
export class SettingsView {
  private readonly local = new Map<string, JsonValue>();
  private persisted = new Map<string, JsonValue>();

  constructor(private readonly base: Readonly<Record<string, JsonValue>>) {}

  /** The persisted values as the host returned them when the worker started. */
  load(persisted: Record<string, JsonValue>): void {
    this.persisted = new Map(Object.entries(persisted));
  }

  get(key: string): JsonValue | null {
    let value: JsonValue | undefined;
    if (this.local.has(key)) value = this.local.get(key);
    else if (this.persisted.has(key)) value = this.persisted.get(key);
    else if (Object.hasOwn(this.base, key)) value = this.base[key];
    if (value === "true") return true;
    if (value === "false") return false;
    return value ?? null;
  }

  /** Takes effect at once; returns a function that undoes it (when the host could not persist the value). */
  set(key: string, value: JsonValue): () => void {
    const had = this.local.has(key);
    const previous = this.local.get(key);
    this.local.set(key, value);
    return () => {
      if (this.local.get(key) !== value) return;
      if (had) this.local.set(key, previous as JsonValue);
      else this.local.delete(key);
    };
  }
}
