import type { ExtensionsStatus } from "../agent/host.ts";
import type { PluginServices } from "../plugins/runtime/index.ts";
import type { HealthCheck } from "./types.ts";

/** What the plugin routes and /health need of the gateway's host when its plugin runtime loads after listening. */
export interface PluginHostHandle {
  workspace: { root: string };
  extensions: ExtensionsStatus;
  loadExtensions(): Promise<void>;
  /** The plugin runtime's services once its extensions loaded. */
  readonly plugins: PluginServices | undefined;
}

export const AT_REST_DETAIL = "at rest: no plugin or hooks.json; the plugin runtime starts with the first turn or plugin request";

/**
 * /health readiness of the plugin runtime: ready once its first generation is published. A plugin in error is
 * reported in the detail but does not make the gateway unready (one plugin's failure never blocks the others).
 * Given the host: "starting" (ready: turns wait for the plugins) until its deferred plugin load finished, unready if
 * that load failed; `atRest` (nothing for the runtime to load at start): ready, "at rest", until first used.
 */
export function pluginHealthCheck(host: PluginHostHandle, options: { atRest?: boolean } = {}): () => Promise<HealthCheck> {
  return async () => {
    const { state, error } = host.extensions;
    if (state === "failed") return { ok: false, detail: `plugin runtime failed to start: ${error}` };
    if (state === "idle" && options.atRest) return { ok: true, detail: AT_REST_DETAIL };
    if (state !== "ready") return { ok: true, detail: "starting: turns wait until the plugins are loaded" };
    const runtime = host.plugins?.runtime;
    if (!runtime?.started) return { ok: false, detail: "plugin runtime not started" };
    const generation = runtime.current();
    const failed = generation.plugins.filter((p) => p.state === "error").length;
    const conflicts = generation.plugins.filter((p) => p.state === "conflict").length;
    const loaded = generation.plugins.length - failed - conflicts;
    const conflict = conflicts > 0 ? `, ${conflicts} in conflict` : "";
    return { ok: true, detail: `generation ${generation.number}: ${loaded} loaded, ${failed} in error${conflict}` };
  };
}
