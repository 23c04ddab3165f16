import type { Logger } from "../../core/logger.ts";
import type { EventBus } from "../events/bus.ts";
import { startPump } from "../events/pump.ts";
import type { Pump } from "../events/pump.ts";
import type { HooksManager } from "./manager.ts";

/**
 * Feed bus events to hooks.json: one subscription to every topic, consumed by a pump that runs the matching
 * actions one event at a time. Its queue is bounded like any subscriber's, so a burst of events while a slow hook
 * runs drops events (counted, warned) rather than piling up processes. Stop the returned pump on shutdown.
 */
export function connectHooksToBus(bus: EventBus, hooks: HooksManager, logger?: Logger): Pump {
  const subscription = bus.subscribe("*", { name: "hooks.json" });
  return startPump(
    subscription,
    async (topic, payloadJson) => {
      const { results } = await hooks.dispatchJson(topic, payloadJson);
      const failed = results.filter((r) => !r.ok);
      if (failed.length > 0)
        throw new Error(`${failed.length} of ${results.length} hooks failed for ${topic}: ${failed[0]!.error}`);
    },
    { name: "hooks.json", logger },
  );
}
