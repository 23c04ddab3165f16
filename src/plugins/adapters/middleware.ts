import type { Stage } from "../../contracts/envelopes.ts";
import { Stages } from "../../contracts/envelopes.ts";
import type { MiddlewareEntry, MiddlewareOutcome } from "../middleware/types.ts";
import type { AdapterStatus } from "../status.ts";
import type { CapabilityRef } from "../types.ts";
import { ADAPTER_TIMEOUT_MARGIN_MS, invokeGuest } from "./call.ts";
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
  const { plugin, capability, status } = context;
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
        return (await invokeGuest(context, ref, "process", [stage, dataJson])) as string;
      } finally {
        finish();
      }
    },
    report: reportTo(status),
  };
  return { type: "middleware", plugin: plugin.name, capability, entry };
}
