import type { EventPublisher } from "../../core/events.ts";
import { errorMessage } from "../../core/errors.ts";
import { createLogger } from "../../core/logger.ts";
import type { Logger } from "../../core/logger.ts";
import { RateLimitedWarner } from "./warn.ts";

/**
 * An EventPublisher that never throws: a publish refused by the bus's limits (payload too large, bad topic,
 * depth exceeded) is logged with a rate-limited warning and counted. For the agent loop, whose turn must not
 * fail because a lifecycle payload is too large to publish.
 */
export interface LenientPublisher extends EventPublisher {
  readonly refused: number;
}

export function lenientPublisher(bus: EventPublisher, logger: Logger = createLogger("events")): LenientPublisher {
  const warner = new RateLimitedWarner(logger);
  let refused = 0;
  return {
    get refused() {
      return refused;
    },
    publish(topic, payload) {
      try {
        bus.publish(topic, payload);
      } catch (error) {
        refused++;
        warner.warn(`refused:${topic}`, "event not published", { topic, error: errorMessage(error), refused });
      }
    },
    wants: (topic) => bus.wants?.(topic) ?? true,
  };
}
