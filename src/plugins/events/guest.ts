import { PrxError } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import type { EventBusApi } from "./types.ts";
import { startPump } from "./pump.ts";
import type { DeliverFn, Pump } from "./pump.ts";

/** What the bus needs to know about a plugin instance asking to subscribe (host `events.subscribe`). */
export interface GuestSubscriber {
  plugin: string;
  capability: string;
  /** Capability type ("hook", "tool", "middleware", ...). */
  type: string;
  /** The instance exports `on-event(topic, payload)`. */
  exportsOnEvent: boolean;
}

/**
 * Subscribe a guest: only hook capabilities that export `on-event` may; anything else gets PLUGIN_UNSUPPORTED.
 * Returns the pump that delivers matching events to `deliver` (which calls the export); the generation that owns the
 * instance stops it on release, which closes and unregisters the subscription.
 */
export function subscribeGuest(
  bus: EventBusApi,
  guest: GuestSubscriber,
  patterns: string | readonly string[],
  deliver: DeliverFn,
  logger?: Logger,
): Pump {
  const who = `${guest.plugin}/${guest.capability}`;
  if (guest.type !== "hook" || !guest.exportsOnEvent) {
    const why = guest.type !== "hook" ? `it is a ${guest.type} capability` : "it does not export on-event";
    throw new PrxError("PLUGIN_UNSUPPORTED", `events.subscribe is not available to ${who}: ${why}`, {
      hint: 'declare a capability of type "hook" that exports on-event(topic, payload) to receive events',
    });
  }
  const subscription = bus.subscribe(patterns, { name: who });
  return startPump(subscription, deliver, { name: who, logger });
}
