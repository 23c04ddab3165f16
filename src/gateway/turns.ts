import type { TurnInput, TurnResult } from "../agent/types.ts";
import { PrxError, toPrxError } from "../core/errors.ts";
import type { GatewayContext } from "./context.ts";

/** Counts turns the gateway started, so shutdown can wait for them, and refuses new ones while draining. */
export class TurnTracker {
  private active = 0;
  private idle: Array<() => void> = [];
  draining = false;

  get inFlight(): number {
    return this.active;
  }

  /** Throws 503 while shutting down. */
  assertAdmitting(): void {
    if (this.draining) {
      throw new PrxError("ABORTED", "the gateway is shutting down and accepts no new turns", {
        status: 503,
        hint: "retry once the gateway is back",
      });
    }
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    this.assertAdmitting();
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      if (this.active === 0) for (const wake of this.idle.splice(0)) wake();
    }
  }

  /** Stop admitting turns; resolves true once none is running, false if `timeoutMs` passed first. */
  drain(timeoutMs: number): Promise<boolean> {
    this.draining = true;
    if (this.active === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.idle.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}

/** Every gateway turn goes through here: drain tracking, turn latency, provider calls and errors. */
export async function runGatewayTurn(gw: GatewayContext, input: TurnInput): Promise<TurnResult> {
  return gw.turns.run(async () => {
    const started = performance.now();
    try {
      const result = await gw.host.runTurn(input);
      gw.metrics.providerCalls.inc({ provider: result.provider }, result.iterations);
      return result;
    } catch (thrown) {
      const error = toPrxError(thrown);
      if (error.code.startsWith("PROVIDER_")) {
        const named = error.details?.provider;
        const provider = typeof named === "string" ? named : defaultProviderName(gw, input);
        gw.metrics.providerCalls.inc({ provider });
        gw.metrics.providerErrors.inc({ provider });
      }
      throw error;
    } finally {
      gw.metrics.turnDuration.observe((performance.now() - started) / 1000);
    }
  });
}

function defaultProviderName(gw: GatewayContext, input: TurnInput): string {
  try {
    return gw.host.resolveModelChoice({ provider: input.provider, model: input.model }).provider;
  } catch {
    return input.provider ?? gw.host.config.default_provider;
  }
}
