import type { Config } from "../../config/schema.ts";

export const HINT = "hint:";

export interface ModelEntry {
  id: string;
  owned_by: string;
}

/** Every model name a client may ask for: the default, each provider's listed models, and each route hint. */
export function modelCatalog(config: Config, defaults: { provider: string; model: string }): ModelEntry[] {
  const seen = new Set<string>();
  const out: ModelEntry[] = [];
  const add = (id: string, owner: string) => {
    if (seen.has(id)) return;
    seen.add(id);
    out.push({ id, owned_by: owner });
  };
  add(defaults.model, defaults.provider);
  for (const [name, provider] of Object.entries(config.providers))
    for (const model of provider.models) add(model, name);
  for (const route of config.model_routes) add(HINT + route.hint, route.provider);
  return out;
}

export interface ModelSelection {
  /** The model name reported back to the client. */
  reported: string;
  provider?: string;
  model?: string;
}

/**
 * The requested model when it is configured (a provider's model, the default, or a route hint with or
 * without the `hint:` prefix); otherwise the configured default, reported as such.
 */
export function selectModel(config: Config, requested: string, defaultModel: string): ModelSelection {
  const hint = requested.startsWith(HINT) ? requested.slice(HINT.length) : requested;
  if (config.model_routes.some((route) => route.hint === hint)) return { reported: requested, model: HINT + hint };
  if (requested === defaultModel) return { reported: requested };
  if (config.providers[config.default_provider]?.models.includes(requested))
    return { reported: requested, model: requested };
  for (const [name, provider] of Object.entries(config.providers)) {
    if (provider.models.includes(requested)) return { reported: requested, provider: name, model: requested };
  }
  return { reported: defaultModel };
}
