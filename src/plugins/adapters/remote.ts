import { errorMessage, PrxError } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import type { ChatRequest, ChatResponse, Provider } from "../../providers/types.ts";
import type { Tool } from "../../tools/types.ts";
import { currentPublishDepth } from "../events/depth.ts";
import { startPump, type Pump } from "../events/pump.ts";
import { compilePatterns } from "../events/patterns.ts";
import { DEFAULT_CAPABILITY_PRIORITY, type ManifestCapability } from "../manifest.ts";
import { remoteStateOf } from "../remote/host-state.ts";
import { matchRoute } from "../remote/routes.ts";
import { createRemoteProvider } from "../remote/provider.ts";
import type { AdapterStatus } from "../status.ts";
import type { CapabilityType } from "../types.ts";
import { inChildSpan, Prx } from "../../telemetry/index.ts";
import { busOf } from "./hook.ts";
import type { CapabilityAdapter, HookAdapter, RemoteAdapter, RemoteAdapterContext, RemoteAdapters, ToolAdapter } from "./types.ts";

/** Provider names of remote plugins' models: `remote:<plugin>`. */
export const REMOTE_PROVIDER_PREFIX = "remote:";

function capabilityOf(type: CapabilityType, name: string, description: string, events: string[] = []): ManifestCapability {
  return { type, name, description, priority: DEFAULT_CAPABILITY_PRIORITY, events, stages: [] };
}

function toolAdapter(context: RemoteAdapterContext, tool: Tool, capability: ManifestCapability): ToolAdapter {
  const status = context.status("tool", capability.name);
  return {
    type: "tool",
    plugin: context.plugin.name,
    capability,
    spec: tool.spec,
    call(args, toolContext) {
      return context.track(async () => {
        const finish = status.begin("execute");
        const attributes = { [Prx.plugin]: context.plugin.name, [Prx.capability]: capability.name, [Prx.capabilityType]: "tool", [Prx.function]: "execute" };
        const result = await inChildSpan(`prx.plugin ${context.plugin.name}/${capability.name}`, { attributes }, () => tool.execute(args, toolContext));
        finish(result.success ? undefined : (result.error ?? "the action failed"));
        return result;
      });
    },
  };
}

/** One declared event: a bus subscription while the generation is current, delivered with handle.deliverEvent. */
function eventAdapter(context: RemoteAdapterContext, event: string, capability: ManifestCapability): HookAdapter {
  const { plugin, handle, host, logger } = context;
  const status = context.status("hook", capability.name);
  const who = `${plugin.name}/${capability.name}`;
  let pump: Pump | null = null;
  const deliver = (topic: string, payloadJson: string): Promise<void> =>
    context.track(async () => {
      const finish = status.begin(topic);
      const leave = remoteStateOf(host).depths.enter(plugin.name, currentPublishDepth());
      try {
        await handle.deliverEvent(event, JSON.parse(payloadJson) as unknown);
        finish();
      } catch (error) {
        finish(errorMessage(error));
        throw error;
      } finally {
        leave();
      }
    });
  const deactivate = async (): Promise<void> => {
    const running = pump;
    pump = null;
    await running?.stop();
  };
  return {
    type: "hook",
    plugin: plugin.name,
    capability,
    patterns: capability.events,
    deliver,
    get subscribed() {
      return pump !== null;
    },
    activate() {
      if (pump) return;
      const bus = busOf(host.events);
      if (!bus) {
        status.error(`${who}: the host's event publisher cannot subscribe; the event handler receives nothing`);
        return;
      }
      try {
        pump = startPump(bus.subscribe(capability.events, { name: who }), deliver, { name: who, logger });
      } catch (error) {
        status.error(`${who}: subscribe failed: ${errorMessage(error)}`);
        logger.warn("remote event handler not subscribed", { event, error: errorMessage(error) });
      }
    },
    deactivate,
    dispose: deactivate,
  };
}

/** Build the adapters of a started remote plugin from its announced descriptor. */
export async function createRemoteAdapters(context: RemoteAdapterContext): Promise<RemoteAdapters> {
  const { handle, track } = context;
  const adapters: CapabilityAdapter[] = [];
  const capabilities: ManifestCapability[] = [];
  const warnings: string[] = [];
  for (const tool of handle.tools()) {
    const capability = capabilityOf("tool", tool.spec.name, tool.spec.description.split("\n")[0] ?? "");
    if (capabilities.some((c) => c.type === "tool" && c.name === capability.name)) {
      warnings.push(`action "${tool.spec.name}" is announced twice (after name sanitising); the first one is used`);
      continue;
    }
    capabilities.push(capability);
    adapters.push(toolAdapter(context, tool, capability));
  }
  for (const subscription of handle.eventSubscriptions()) {
    try {
      compilePatterns([subscription.topic]);
    } catch (error) {
      warnings.push(`event "${subscription.name}": topic ${subscription.topic} is not a valid pattern (${errorMessage(error)}); not subscribed`);
      continue;
    }
    const capability = capabilityOf("hook", subscription.name, `event handler for ${subscription.topic}`, [subscription.topic]);
    capabilities.push(capability);
    adapters.push(eventAdapter(context, subscription.name, capability));
  }
  const models = handle.modelTypes().length > 0 ? createRemoteProvider(handle) : null;
  const remote: RemoteAdapter = {
    plugin: context.plugin.name,
    handle,
    context: (input, signal) => track(() => handle.contextProviders(input, signal)),
    evaluate: (input) => track(() => handle.runEvaluators(input)),
    provider: models && {
      name: models.name,
      chat: (request: ChatRequest): Promise<ChatResponse> => track(() => models.chat(request)),
      listModels: async () => handle.modelTypes(),
      probe: () => models.probe?.() ?? Promise.resolve(null),
    },
    route: (method, path, request) => track(() => handle.handleRoute(method, path, request)),
    publicRoute: (method, path) => matchRoute(handle.descriptor().routes ?? [], method.toUpperCase(), path)?.route.public === true,
  };
  return { remote, adapters, capabilities, warnings };
}
