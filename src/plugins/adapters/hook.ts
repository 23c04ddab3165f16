import { PrxError } from "../../core/errors.ts";
import type { EventPublisher } from "../../core/events.ts";
import { subscribeGuest } from "../events/guest.ts";
import { bridgeEventName } from "../events/lifecycle.ts";
import { compilePatterns } from "../events/patterns.ts";
import type { Pump } from "../events/pump.ts";
import type { EventBusApi } from "../events/types.ts";
import { describeCapability, guestCall } from "./call.ts";
import type { AdapterContext, CapabilityAdapter, HookAdapter } from "./types.ts";

/** The runtime's EventBus when the host's publisher is one (plain publishers cannot subscribe). */
export function busOf(events: EventPublisher): EventBusApi | null {
  const candidate = events as Partial<EventBusApi>;
  return typeof candidate.subscribe === "function" &&
    typeof candidate.on === "function" &&
    typeof candidate.stats === "function"
    ? (events as EventBusApi)
    : null;
}

export async function createHookAdapter(context: AdapterContext): Promise<HookAdapter> {
  const { plugin, capability, host, status, logger } = context;
  const where = describeCapability(context);
  const patterns = [...capability.events];
  try {
    compilePatterns(patterns);
  } catch (cause) {
    throw new PrxError("PLUGIN_MANIFEST", `${where}: invalid event pattern: ${(cause as Error).message}`, { cause });
  }
  let pump: Pump | null = null;
  const deactivate = async (): Promise<void> => {
    const running = pump;
    pump = null;
    await running?.stop();
  };
  const deliver = (topic: string, payloadJson: string): Promise<void> => {
    const bridged = bridgeEventName(topic);
    return guestCall(context, "on-event", [bridged, payloadJson], bridged, () => undefined);
  };
  // Events of the guest's own events.subscribe calls count in this capability's status too.
  context.instance.routeGuestEvents?.({ type: "hook", name: capability.name }, deliver);
  return {
    type: "hook",
    plugin: plugin.name,
    capability,
    patterns,
    deliver,
    get subscribed() {
      return pump !== null;
    },
    activate() {
      if (pump) return;
      const bus = busOf(host.events);
      if (!bus) {
        status.error(`${where}: the host's event publisher cannot subscribe; the hook receives no events`);
        logger.warn("hook not subscribed: no event bus", { capability: capability.name });
        return;
      }
      try {
        pump = subscribeGuest(
          bus,
          { plugin: plugin.name, capability: capability.name, type: "hook", exportsOnEvent: true },
          patterns,
          deliver,
          logger,
        );
      } catch (error) {
        status.error(`${where}: subscribe failed: ${(error as Error).message}`);
        logger.warn("hook not subscribed", { capability: capability.name, error: (error as Error).message });
      }
    },
    deactivate,
    dispose: deactivate,
  };
}
