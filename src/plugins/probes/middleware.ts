import { EnvelopeSchemas } from "../../contracts/envelope-schemas.ts";
import { MiddlewareBlock, type Stage } from "../../contracts/envelopes.ts";
import { PrxError } from "../../core/errors.ts";
import type { Generation } from "../generation.ts";
import { MiddlewareChain } from "../middleware/chain.ts";
import type { MiddlewareOutcome } from "../middleware/types.ts";
import { describe } from "./request.ts";
import { requireLoaded, unloadedSummary } from "./targets.ts";

/**
 * The `middleware_test` probe: the live chain of one stage (or one plugin's part of it) on a given envelope, each
 * step reported and counted in status. A block ends the run as it would end a turn: `output` is null and `blocked`
 * says who blocked and why. Middleware plugins that did not load are listed under `not_loaded`.
 */
export async function middlewareTest(generation: Generation, plugin: string | undefined, stage: Stage, data: unknown) {
  const envelope = EnvelopeSchemas[stage].safeParse(data);
  if (!envelope.success)
    throw new PrxError("BAD_REQUEST", `data is not a valid ${stage} envelope: ${describe(envelope.error)}`, {
      status: 400,
    });
  requireLoaded(generation, plugin);
  const adapters = generation.adapters.middleware.filter((a) => plugin === undefined || a.plugin === plugin);
  if (plugin !== undefined && adapters.length === 0)
    throw new PrxError("BAD_REQUEST", `plugin "${plugin}" has no middleware capability`, { status: 400 });
  const steps: Record<string, unknown>[] = [];
  const chain = new MiddlewareChain(
    adapters.map((a) => a.entry),
    {
      sink: {
        onResult(entry, outcome: MiddlewareOutcome) {
          steps.push({
            plugin: entry.plugin,
            capability: entry.name,
            ok: outcome.ok,
            failure: outcome.failure ?? null,
            error: outcome.error ?? null,
            block: outcome.block ?? null,
            duration_ms: outcome.durationMs,
          });
        },
      },
    },
  );
  const output = await generation.track(() => chain.run(stage, envelope.data as never));
  const blocked =
    output instanceof MiddlewareBlock
      ? { plugin: output.plugin, capability: output.capability, stage: output.stage, reason: output.reason }
      : null;
  return {
    stage,
    input: envelope.data,
    output: blocked ? null : output,
    changed: blocked !== null || JSON.stringify(output) !== JSON.stringify(envelope.data),
    blocked,
    steps,
    not_loaded: plugin === undefined ? unloadedSummary(generation, "middleware") : [],
  };
}
