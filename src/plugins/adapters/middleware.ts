import type { Envelopes, MiddlewareRunner, Stage, StageOutput } from "../../agent/envelopes.ts";
import { identityMiddleware, Stages } from "../../agent/envelopes.ts";
import { createLogger } from "../../core/logger.ts";
import { MiddlewareChain } from "../middleware/chain.ts";
import { createStableMiddlewareRunner } from "../middleware/stable.ts";
import type { MiddlewareEntry, MiddlewareOutcome, MiddlewareStatusSink } from "../middleware/types.ts";
import type { AdapterStatus } from "../status.ts";
import type { CapabilityRef } from "../types.ts";
import { ADAPTER_TIMEOUT_MARGIN_MS } from "./call.ts";
import type { AdapterContext, CapabilityAdapter, GenerationAdapters } from "./types.ts";

/**
 * Middleware adapters: each capability becomes one MiddlewareChain entry calling the guest's
 * `process(stage, data-json)`. Failures (error, invalid JSON, invalid envelope, timeout) are isolated by the chain;
 * the sink below counts them, and blocks, in the capability's status.
 */
export interface MiddlewareAdapter extends CapabilityAdapter {
  readonly type: "middleware";
  readonly entry: MiddlewareEntry;
}

const statusOfEntry = new WeakMap<MiddlewareEntry, AdapterStatus>();

/** Counts every failed step, and every block, in the status of the capability that produced it. */
export const middlewareStatusSink: MiddlewareStatusSink = {
  onResult(entry: MiddlewareEntry, outcome: MiddlewareOutcome): void {
    if (outcome.ok && outcome.block === undefined) return;
    const status = statusOfEntry.get(entry);
    if (!status) return;
    if (outcome.block !== undefined) return status.block(outcome.stage, outcome.block);
    status.error(`${outcome.stage}: ${outcome.failure}: ${outcome.error}`);
    status.increment(`failed_${outcome.failure}`);
  },
};

export async function createMiddlewareAdapter(context: AdapterContext): Promise<MiddlewareAdapter> {
  const { plugin, capability, instance, status, track } = context;
  const ref: CapabilityRef = { type: "middleware", name: capability.name };
  const declared = capability.stages.length > 0 ? capability.stages : Stages;
  const entry: MiddlewareEntry = {
    plugin: plugin.name,
    name: capability.name,
    priority: capability.priority,
    stages: Stages.every((s) => declared.includes(s)) ? "all" : [...declared],
    timeoutMs: plugin.resources.maxExecutionTimeMs + ADAPTER_TIMEOUT_MARGIN_MS,
    process: (stage: Stage, dataJson: string) =>
      track(async () => {
        // Failures are counted by middlewareStatusSink, which also sees the chain's own verdicts (JSON, schema).
        const finish = status.begin(stage);
        try {
          return (await instance.invoke(ref, "process", [stage, dataJson])) as string;
        } finally {
          finish();
        }
      }),
  };
  statusOfEntry.set(entry, status);
  return { type: "middleware", plugin: plugin.name, capability, entry };
}

const chains = new WeakMap<object, MiddlewareChain>();
const logger = createLogger("plugins.middleware");

/** The chain of one generation (built once, in chain order: priority, then plugin name, then capability). */
export function middlewareChainOf(generation: { adapters: GenerationAdapters }): MiddlewareChain {
  let chain = chains.get(generation);
  if (!chain) {
    chain = new MiddlewareChain(
      generation.adapters.middleware.map((a) => a.entry),
      { sink: middlewareStatusSink, logger },
    );
    chains.set(generation, chain);
  }
  return chain;
}

/** What the stable runner needs from the runtime. */
export interface MiddlewareGenerationSource {
  readonly started: boolean;
  current(): { adapters: GenerationAdapters; track<T>(fn: () => Promise<T>): Promise<T> };
}

/**
 * The runner the agent holds for its whole life: every stage resolves the current generation's chain, and the
 * whole chain run counts as one in-flight call on that generation, so a reload never releases instances under it.
 * `active(stage)` is true when the current generation has middleware for that stage.
 */
export function createPluginMiddlewareRunner(source: MiddlewareGenerationSource): MiddlewareRunner {
  const stable = createStableMiddlewareRunner(() => {
    if (!source.started) return identityMiddleware;
    const generation = source.current();
    const chain = middlewareChainOf(generation);
    return {
      run: <S extends Stage>(stage: S, envelope: Envelopes[S]): Promise<StageOutput<S>> =>
        chain.entriesFor(stage).length === 0
          ? Promise.resolve(envelope)
          : generation.track(() => chain.run(stage, envelope)),
    };
  }, logger);
  return {
    run: stable.run,
    active(stage: Stage): boolean {
      return source.started && middlewareChainOf(source.current()).entriesFor(stage).length > 0;
    },
  };
}
