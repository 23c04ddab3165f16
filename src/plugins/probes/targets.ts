import { PrxError } from "../../core/errors.ts";
import type { Generation, PluginRecord } from "../generation.ts";
import type { CapabilityType } from "../types.ts";

/**
 * What a probe says when its target is not served because the plugin behind it did not load (or is disabled):
 * "<plugin> failed to load: <its load error>" instead of "has no middleware capability" / "no cron job".
 */
export function unavailable(record: PluginRecord): PrxError {
  const disabled = record.state === "disabled";
  const why = disabled ? "is disabled in config.toml" : `failed to load: ${loadError(record)}`;
  return new PrxError(record.error?.code ?? "PLUGIN_LOAD", `${record.name} ${why}`, {
    status: 409,
    hint: disabled
      ? `set enabled = true under [plugins.${record.name}] in config.toml, then reload it`
      : (record.error?.hint ??
        `fix the plugin (prx plugins info ${record.name} shows the error), then reload it: prx plugins reload ${record.name}`),
    details: { plugin: record.name, state: record.state },
  });
}

/** The record's load error without the `plugin <name>: ` its loader put in front (the probe names the plugin). */
function loadError(record: PluginRecord): string {
  const message = record.error?.message ?? "no error recorded";
  for (const prefix of [`plugin ${record.name}: `, `plugin "${record.name}": `])
    if (message.startsWith(prefix)) return message.slice(prefix.length);
  return message;
}

/** Throws `unavailable` when `plugin` is named and did not load in this generation. */
export function requireLoaded(generation: Generation, plugin: string | undefined): void {
  const record = plugin === undefined ? undefined : generation.plugin(plugin);
  if (record && record.state !== "active") throw unavailable(record);
}

/** Plugins of the generation that declare capabilities of `type` but serve none (failed to load, or disabled). */
export function unloadedWith(generation: Generation, type: CapabilityType): PluginRecord[] {
  return generation.plugins.filter((r) => r.state !== "active" && r.capabilities.some((c) => c.type === type));
}

/**
 * The plugin that would serve `name` as a capability of `type` had it loaded: a declared capability of that name,
 * `<plugin>/<capability>`, or the plugin's own name. Undefined when no unloaded plugin claims it.
 */
export function unloadedOwner(generation: Generation, type: CapabilityType, name: string): PluginRecord | undefined {
  return unloadedWith(generation, type).find(
    (r) => r.name === name || r.capabilities.some((c) => c.type === type && (c.name === name || `${r.name}/${c.name}` === name)),
  );
}

/** The not-loaded plugins declaring `type`, as a probe result lists them. */
export function unloadedSummary(generation: Generation, type: CapabilityType): { plugin: string; error: string }[] {
  return unloadedWith(generation, type).map((r) => ({ plugin: r.name, error: unavailable(r).message }));
}
