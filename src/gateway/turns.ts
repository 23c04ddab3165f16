import type { TurnPlan } from "../agent/plan.ts";
import type { TurnInput, TurnResult } from "../agent/types.ts";
import { toPrxError, type PrxError } from "../core/errors.ts";
import type { GatewayContext } from "./types.ts";

/** How a gateway turn runs: `cancellable` (POST /api/sessions/:id/cancel stops it), `plan` (its model, resolved). */
export interface GatewayTurnOptions {
  cancellable?: boolean;
  /** The model choice a stream's preflight resolved; without it, the turn resolves its own. */
  plan?: TurnPlan;
}

/**
 * Every gateway turn goes through here: drain tracking, turn latency, provider calls and errors, each provider count
 * labelled with the provider that answered or failed (the result's, the error's, else the plan's).
 */
export async function runGatewayTurn(gw: GatewayContext, input: TurnInput, options: GatewayTurnOptions = {}): Promise<TurnResult> {
  return gw.turns.run(async () => {
    const started = performance.now();
    const control = options.cancellable ? gw.turns.control(input.sessionId, input.signal) : null;
    try {
      const result = await gw.host.runTurn(control ? { ...input, signal: control.signal } : input, options.plan);
      gw.metrics.providerCalls.inc({ provider: result.provider }, result.iterations);
      return result;
    } catch (thrown) {
      const error = toPrxError(thrown);
      if (error.code.startsWith("PROVIDER_")) {
        const provider = failedProvider(error) ?? options.plan?.choice.provider ?? input.provider ?? gw.host.config.default_provider;
        gw.metrics.providerCalls.inc({ provider });
        gw.metrics.providerErrors.inc({ provider });
      }
      throw error;
    } finally {
      control?.release();
      gw.metrics.turnDuration.observe((performance.now() - started) / 1000);
    }
  });
}

/** The provider a failure names: the one whose call failed, or the one no configuration or plugin provides. */
function failedProvider(error: PrxError): string | undefined {
  const named = error.details?.provider ?? (error.code === "PROVIDER_UNKNOWN" ? error.details?.name : undefined);
  return typeof named === "string" ? named : undefined;
}
