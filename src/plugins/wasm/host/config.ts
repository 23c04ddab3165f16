import type { HostContext } from "./context.ts";

/** prx:host/config — the plugin's merged [config] string map. Auto-granted. */
export function configImports(ctx: HostContext) {
  return {
    get: (key: string): string | undefined =>
      Object.hasOwn(ctx.plugin.config, key) ? ctx.plugin.config[key] : undefined,
    getAll: (): [string, string][] => Object.entries(ctx.plugin.config),
  };
}
