import type { Envelopes, MiddlewareRunner, Stage, StageOutput } from "../../contracts/envelopes.ts";
import { Stages } from "../../contracts/envelopes.ts";
import type { MiddlewareChain } from "../middleware/chain.ts";
import type { MiddlewareEntry, MiddlewareOutcome } from "../middleware/types.ts";
import type { AdapterStatus } from "../status.ts";
import type { CapabilityRef } from "../types.ts";
import { ADAPTER_TIMEOUT_MARGIN_MS } from "./call.ts";
import type { AdapterContext, CapabilityAdapter, MiddlewareAdapter } from "./types.ts";

/** Counts a failed step, or a block, in the status of the capability that produced it. */
function reportTo(status: AdapterStatus): (entry: MiddlewareEntry, outcome: MiddlewareOutcome) => void {
  return (_entry, outcome) => {
    if (outcome.block !== undefined) return status.block(outcome.stage, outcome.block);
    if (outcome.ok) return;
    status.error(`${outcome.stage}: ${outcome.failure}: ${outcome.error}`);
    status.increment(`failed_${outcome.failure}`);
  };
}

/**
 * The entry does not count itself in flight: the runner (or the middleware_test probe) runs the whole chain inside
 * one `track` of the generation that owns the chain.
 */
export async function createMiddlewareAdapter(context: AdapterContext): Promise<MiddlewareAdapter> {
  const { plugin, capability, instance, status } = context;
  const ref: CapabilityRef = { type: "middleware", name: capability.name };
  const declared = capability.stages.length > 0 ? capability.stages : Stages;
  const entry: MiddlewareEntry = {
    plugin: plugin.name,
    name: capability.name,
    priority: capability.priority,
    stages: Stages.every((s) => declared.includes(s)) ? "all" : [...declared],
    timeoutMs: plugin.resources.maxExecutionTimeMs + ADAPTER_TIMEOUT_MARGIN_MS,
    async process(stage: Stage, dataJson: string) {
      // failures (and the chain's own verdicts: JSON, schema, block) are counted by report
      const finish = status.begin(stage);
      try {
        return (await instance.invoke(ref, "process", [stage, dataJson])) as string;
      } finally {
        finish();
      }
    },
    report: reportTo(status),
  };
  return { type: "middleware", plugin: plugin.name, capability, entry };
}

/** What the runner needs from the runtime. */
export interface MiddlewareGenerationSource {
  readonly started: boolean;
  current(): { middleware: MiddlewareChain; track<T>(fn: () => Promise<T>): Promise<T> };
}

/**
 * The runner the agent holds for its whole life: every stage resolves the current generation's chain, and the whole
 * chain run counts as one in-flight call on that generation, so a reload never releases instances under it. The
 * chain never throws. `active(stage)` is true when the current generation has middleware for that stage.
 */
export function createPluginMiddlewareRunner(source: MiddlewareGenerationSource): MiddlewareRunner {
  return {
    run<S extends Stage>(stage: S, envelope: Envelopes[S]): Promise<StageOutput<S>> {
      if (!source.started) return Promise.resolve(envelope);
      const generation = source.current();
      const chain = generation.middleware;
      if (chain.entriesFor(stage).length === 0) return Promise.resolve(envelope);
      return generation.track(() => chain.run(stage, envelope));
    },
    active(stage: Stage): boolean {
      return source.started && source.current().middleware.entriesFor(stage).length > 0;
    },
  };
}
