import { errorMessage } from "../../core/errors.ts";
import { createLogger } from "../../core/logger.ts";
import type { Logger } from "../../core/logger.ts";
import { runHandlingEvent } from "./depth.ts";
import type { Subscription } from "./types.ts";
import { RateLimitedWarner } from "./warn.ts";

/** Delivers one event; for hook plugins this calls the guest's `on-event(topic, payload)` export. */
export type DeliverFn = (topic: string, payloadJson: string) => Promise<void>;

export interface PumpStats {
  name: string;
  delivered: number;
  errors: number;
  running: boolean;
  lastEvent: { topic: string; at: number } | null;
  lastError: { topic: string; message: string; at: number } | null;
}

export interface Pump {
  /** Resolves when the pump has stopped (its subscription closed) and no delivery is in flight. */
  readonly done: Promise<void>;
  /** Close the subscription (unregistering it from the bus) and wait for an in-flight delivery to finish. */
  stop(): Promise<void>;
  stats(): PumpStats;
}

/**
 * Consume a subscription continuously, one delivery at a time, until it is closed. A failing delivery is counted,
 * logged (rate-limited) and the pump moves on to the next event. Publishes made by `deliver` are nested one level
 * deeper than the event they handle, so a guest republishing in a loop hits the bus's depth limit.
 */
export function startPump(
  subscription: Subscription,
  deliver: DeliverFn,
  options: { name?: string; logger?: Logger } = {},
): Pump {
  const name = options.name ?? subscription.name;
  const warner = new RateLimitedWarner(options.logger ?? createLogger("events.pump"));
  const stats: PumpStats = { name, delivered: 0, errors: 0, running: true, lastEvent: null, lastError: null };

  const loop = async (): Promise<void> => {
    for (;;) {
      const event = await subscription.next();
      if (event === null) break;
      stats.lastEvent = { topic: event.topic, at: Date.now() };
      try {
        await runHandlingEvent(event.depth, () => deliver(event.topic, event.payloadJson));
        stats.delivered++;
      } catch (error) {
        stats.errors++;
        const message = errorMessage(error);
        stats.lastError = { topic: event.topic, message, at: Date.now() };
        warner.warn("deliver", "event delivery failed", {
          pump: name,
          topic: event.topic,
          error: message,
          errors: stats.errors,
        });
      }
    }
    stats.running = false;
  };
  const done = loop();

  return {
    done,
    stop: async () => {
      subscription.close();
      await done;
    },
    stats: () => ({ ...stats }),
  };
}
