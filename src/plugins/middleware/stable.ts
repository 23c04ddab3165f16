import type { Envelopes, MiddlewareRunner, Stage, StageOutput } from "../../agent/envelopes.ts";
import { errorMessage } from "../../core/errors.ts";
import { createLogger } from "../../core/logger.ts";
import type { Logger } from "../../core/logger.ts";

/**
 * A runner for long-lived consumers (the agent loop): it resolves the current generation's chain at every call,
 * so a reload takes effect on the next stage without anyone holding a stale chain. Never throws.
 */
export function createStableMiddlewareRunner(
  getCurrent: () => MiddlewareRunner,
  logger: Logger = createLogger("plugins.middleware"),
): MiddlewareRunner {
  return {
    async run<S extends Stage>(stage: S, envelope: Envelopes[S]): Promise<StageOutput<S>> {
      try {
        return await getCurrent().run(stage, envelope);
      } catch (error) {
        logger.error("middleware chain failed; envelope passed on unchanged", { stage, error: errorMessage(error) });
        return envelope;
      }
    },
  };
}
