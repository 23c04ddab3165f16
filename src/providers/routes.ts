import { PrxError } from "../core/errors.ts";
import type { Config } from "../config/schema.ts";

export const HINT_PREFIX = "hint:";
export const OFFLINE_PROVIDER = "offline";

export interface ModelChoice {
  provider: string;
  model: string;
}

/**
 * Which provider and model a turn uses: `hint:<name>` picks a `[[model_routes]]` entry; otherwise the explicit
 * provider/model, then default_provider/default_model. A configured default provider whose model is left at
 * "offline" uses its first `models` entry.
 */
export function resolveModelChoice(config: Config, input: { provider?: string; model?: string } = {}): ModelChoice {
  const fromInput = input.model !== undefined && input.model !== "";
  const usesDefault = input.provider === undefined || input.provider === config.default_provider;
  const requested = fromInput ? input.model! : usesDefault ? config.default_model : undefined;
  if (requested?.startsWith(HINT_PREFIX)) {
    const hint = requested.slice(HINT_PREFIX.length);
    const route = config.model_routes.find((candidate) => candidate.hint === hint);
    if (!route) {
      const known = config.model_routes.map((candidate) => `hint:${candidate.hint}`);
      const where = fromInput ? "requested model" : "default_model";
      const message = `${where} "${requested}": no [[model_routes]] entry with hint "${hint}"`;
      throw new PrxError(fromInput ? "USAGE" : "CONFIG_INVALID", message, {
        hint:
          known.length > 0
            ? `known hints: ${known.join(", ")}`
            : "add [[model_routes]] with hint, provider and model to config.toml",
        status: 400,
        details: { hints: known },
      });
    }
    return { provider: route.provider, model: route.model };
  }
  const provider = input.provider ?? config.default_provider;
  if (requested !== undefined && (requested !== OFFLINE_PROVIDER || provider === OFFLINE_PROVIDER || fromInput)) {
    return { provider, model: requested };
  }
  const configured = Object.hasOwn(config.providers, provider) ? config.providers[provider] : undefined;
  if (configured && configured.kind !== "offline") {
    const first = configured.models[0];
    if (first) return { provider, model: first };
    throw new PrxError("CONFIG_INVALID", `no model chosen for provider "${provider}"`, {
      hint: `set default_model, or list models in [providers.${provider}] (e.g. models = ["gpt-4o-mini"])`,
      status: 400,
    });
  }
  return { provider, model: requested ?? config.default_model };
}
