import { errorMessage, type PrxError } from "../core/errors.ts";
import type { GatewayHost, HealthCheck } from "./types.ts";

/** The default provider's readiness, found without the network: what /health reports and the start-up warns about. */
export interface ProviderReadiness extends HealthCheck {
  /** Set when the default provider cannot answer under its configuration (a key variable that is not set). */
  problem?: PrxError;
  /** The first fallback that can answer instead, when the default provider has a problem. */
  fallback?: string;
}

export function providerReadiness(host: Pick<GatewayHost, "providers" | "resolveModelChoice">): ProviderReadiness {
  let label: string;
  let problem: PrxError | null;
  let fallback: string | undefined;
  try {
    const choice = host.resolveModelChoice({});
    const provider = host.providers.resolve(choice.provider);
    label = `${choice.provider}/${choice.model}`;
    problem = provider.configProblem?.() ?? null;
    if (!problem) return { ok: true, detail: label };
    fallback = provider.chain?.slice(1).find((candidate) => !candidate.configProblem?.())?.name;
  } catch (error) {
    return { ok: false, detail: errorMessage(error) };
  }
  const why = `${label} is misconfigured: ${problem.message}${problem.hint ? `; ${problem.hint}` : ""}`;
  if (fallback) return { ok: true, detail: `${why}; turns are answered by the fallback ${fallback}`, problem, fallback };
  return { ok: false, detail: why, problem };
}

/** The start-up line for a misconfigured default provider, or null when it is fine. */
export function providerWarning(readiness: ProviderReadiness): string | null {
  const problem = readiness.problem;
  if (!problem) return null;
  const effect = readiness.fallback
    ? `turns are answered by the fallback provider ${readiness.fallback}`
    : "every turn fails with 503 and /health reports 503";
  return `warning: ${problem.message}: ${effect} until it is fixed (${problem.hint ?? "see prx doctor"})`;
}
