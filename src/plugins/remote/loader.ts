import { PrxError } from "../../core/errors.ts";
import { resolveModelChoice } from "../../providers/routes.ts";
import type { ProviderResolver } from "../../providers/types.ts";
import type { PluginHostServices, PluginLoader } from "../types.ts";
import { agentIdentity, type AgentIdentity } from "./agent.ts";
import { createRemoteHostBindings } from "./host/bindings/index.ts";
import { runHandlingEvent } from "../events/depth.ts";
import { remoteStateOf } from "./host-state.ts";
import { openRemotePlugin, remoteOptionsFor } from "./index.ts";
import type { RemotePluginInstance } from "./instance.ts";
import type { HistoryMessage, RemoteHostBindings } from "./types.ts";

/** A host without providers (`prx plugins list`): useModel fails with a clear error instead of a crash. */
const noProviders: ProviderResolver = {
  resolve(name) {
    throw new PrxError("PROVIDER_UNKNOWN", `no providers in this host; useModel cannot reach "${name}"`, {
      hint: "remote plugins can use models inside an agent host (prx chat, prx agent, prx gateway)",
    });
  },
  names: () => [],
};

/**
 * Host bindings wired to the live host: the memory backend and event bus of the runtime, the provider resolver with
 * the configured default model (read at call time, so it follows the config the runtime builds with), settings and
 * memories persisted per plugin in the workspace database, and composeState's history from the sessions table.
 * One set per runtime (every generation shares it), kept in the runtime's remote state.
 */
export function remoteBindingsFor(host: PluginHostServices): RemoteHostBindings {
  const state = remoteStateOf(host);
  if (state.bindings) return state.bindings;
  const sessions = host.sessions;
  const config = () => configOf(host);
  const bindings = createRemoteHostBindings({
    store: host.storage.remotePlugins,
    memory: host.memory,
    providers: host.providers ?? noProviders,
    events: host.events,
    model: () => resolveModelChoice(config(), {}),
    ...(sessions ? { sessions } : {}),
    pluginKv: host.storage.pluginKv,
    history: async (sessionId, limit): Promise<HistoryMessage[]> =>
      ((await sessions?.messages(sessionId, limit)) ?? [])
        .filter((m) => (m.role === "user" || m.role === "assistant") && m.content.trim() !== "")
        .map((m) => ({ role: m.role as "user" | "assistant", content: m.content })),
  });
  const depths = state.depths;
  const wired: RemoteHostBindings = {
    ...bindings,
    emitEvent(plugin, name, payload) {
      const depth = depths.depthOf(plugin);
      if (depth === 0) return bindings.emitEvent(plugin, name, payload);
      runHandlingEvent(depth - 1, () => bindings.emitEvent(plugin, name, payload));
    },
  };
  state.bindings = wired;
  return wired;
}

/** runtime.agentId / character / getConversationLength of the plugins this host starts: `[agent]` of its config. */
function agentFor(host: PluginHostServices): AgentIdentity {
  return agentIdentity(configOf(host).agent);
}

/** The runtime's configuration; a host without one (a bare loader in a test) reads the workspace's config.toml. */
function configOf(host: PluginHostServices) {
  if (host.config) return host.config();
  const { loadConfig } = require("../../config/loader.ts") as typeof import("../../config/loader.ts");
  return loadConfig(host.workspace.configPath).config;
}

/**
 * The loader of `runtime = "remote"` plugins: serves a plugin from its cached descriptor without starting it when it
 * may start on demand, else starts the Worker or subprocess and resolves once it is ready (a plugin that cannot
 * start fails this load, so a reload keeps the previous generation). release() shuts the plugin down
 * after its in-flight calls (the generation has already drained its own tracked calls by then).
 */
export const remoteLoader: PluginLoader = {
  kinds: ["remote"],
  async load(plugin, host, signal): Promise<RemotePluginInstance> {
    const handle = await openRemotePlugin(
      { ...remoteOptionsFor(plugin, remoteBindingsFor(host), agentFor(host)), memoryTicker: remoteStateOf(host).memoryTicker },
      host.workspace.cacheDir,
      signal,
    );
    return {
      plugin,
      handle,
      invoke(capability, fn) {
        return Promise.reject(
          new PrxError(
            "PLUGIN_UNSUPPORTED",
            `remote plugin "${plugin.name}" has no WIT exports (asked ${capability.type} "${capability.name}" ${fn})`,
            { hint: "remote plugins announce actions, providers, models, events, evaluators and routes instead" },
          ),
        );
      },
      release: () => handle.shutdown(),
    };
  },
};
