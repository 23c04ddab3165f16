import type { Envelopes, MiddlewareRunner, Stage, StageOutput } from "../../contracts/envelopes.ts";
import type { MiddlewareChain } from "./chain.ts";

/** What the runner needs from the runtime. */
export interface MiddlewareGenerationSource {
  readonly started: boolean;
  current(): { middleware: MiddlewareChain; track<T>(fn: () => Promise<T>): Promise<T> };
}

/**
 * The runner the agent holds for its whole life: every stage resolves the current generation's chain, and the whole
 * chain run counts as one in-flight call on that generation, so a reload never releases instances under it. The
 * chain never throws. A stage without middleware (or a runtime not started) hands its envelope back synchronously.
 */
export function createPluginMiddlewareRunner(source: MiddlewareGenerationSource): MiddlewareRunner {
  return {
    run<S extends Stage>(stage: S, envelope: Envelopes[S]): StageOutput<S> | Promise<StageOutput<S>> {
      if (!source.started) return envelope;
      const generation = source.current();
      const chain = generation.middleware;
      if (!chain.active(stage)) return envelope;
      return generation.track(() => chain.run(stage, envelope));
    },
    active(stage: Stage): boolean {
      return source.started && source.current().middleware.active(stage);
    },
  };
}
