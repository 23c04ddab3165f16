import type { Config } from "../../config/schema.ts";
import { PrxError } from "../../core/errors.ts";
import { AGENT_MODEL_PREFIX, MAIN_AGENT } from "../../agents/types.ts";
import { isExternalProviderName } from "../../providers/resolver.ts";

export const HINT = "hint:";

export interface ModelEntry {
  id: string;
  owned_by: string;
}

export interface ModelSelection {
  /** The model name reported back to the client. */
  reported: string;
  provider?: string;
  model?: string;
}

/**
 * Every model name the OpenAI-compatible API answers to, built once per gateway: a request's `model` costs one map
 * lookup. Names: each route hint (`hint:<name>` and bare), the default model, each provider's `models`, and each
 * `[gateway] model_aliases` entry (answered by its target; /v1/models lists it too), and `agent:<id>` for each agent. Each provider's `embedding_model`
 * is listed too and answers POST /v1/embeddings.
 */
export interface ModelTable {
  select(requested: string): ModelSelection | undefined;
  /** The provider whose `embedding_model` is `requested` (POST /v1/embeddings), if any. */
  embedder(requested: string): string | undefined;
  /** For GET /v1/models, in the order above, then the plugin providers served now (`remote:<plugin>`, `wasm:<name>`). */
  readonly catalog: readonly ModelEntry[];
}

/** A plugin provider's name as a model: "remote:openai" answers with that provider and its own default model. */
const PLUGIN_OWNER = "plugin";

export function buildModelTable(
  config: Config,
  defaults: { provider: string; model: string },
  pluginProviders: () => readonly string[] = () => [],
): ModelTable {
  const byName = new Map<string, ModelSelection>();
  const catalog: ModelEntry[] = [];
  const listed = new Set<string>();
  const list = (id: string, owner: string) => {
    if (listed.has(id)) return;
    listed.add(id);
    catalog.push({ id, owned_by: owner });
  };
  // The first claim of a name wins: route hints, the default model, the default provider's models, the others.
  const claim = (name: string, selection: ModelSelection) => {
    if (!byName.has(name)) byName.set(name, selection);
  };
  for (const route of config.model_routes) {
    claim(HINT + route.hint, { reported: HINT + route.hint, model: HINT + route.hint });
    claim(route.hint, { reported: route.hint, model: HINT + route.hint });
  }
  claim(defaults.model, { reported: defaults.model });
  list(defaults.model, defaults.provider);
  for (const model of config.providers[config.default_provider]?.models ?? []) claim(model, { reported: model, model });
  for (const [name, provider] of Object.entries(config.providers)) {
    for (const model of provider.models) {
      claim(model, { reported: model, provider: name, model });
      list(model, name);
    }
  }
  for (const route of config.model_routes) list(HINT + route.hint, route.provider);
  // Each agent answers as `agent:<id>` with its own prompt and model; listed once [agents.*] configures some.
  for (const id of new Set([MAIN_AGENT, ...Object.keys(config.agents)])) {
    const name = AGENT_MODEL_PREFIX + id;
    claim(name, { reported: name, model: name });
    if (Object.keys(config.agents).length > 0) list(name, "prx");
  }
  // Embedding models answer POST /v1/embeddings only; the first provider naming one serves it.
  const embedders = new Map<string, string>();
  for (const [name, provider] of Object.entries(config.providers)) {
    const model = provider.embedding_model;
    if (model === undefined || provider.kind !== "openai-compatible" || embedders.has(model)) continue;
    embedders.set(model, name);
    list(model, name);
  }
  for (const [alias, target] of Object.entries(config.gateway.model_aliases)) {
    const where = `[gateway] model_aliases "${alias}" = "${target}"`;
    if (byName.has(alias)) {
      throw new PrxError("CONFIG_INVALID", `${where}: "${alias}" is already a model this gateway serves`, {
        hint: "remove the alias: clients can ask for that model by its name",
      });
    }
    const selection = byName.get(target);
    if (!selection) {
      throw new PrxError("CONFIG_INVALID", `${where}: "${target}" is not a model this gateway serves`, {
        hint: `point the alias at one of: ${[...byName.keys()].join(", ")}`,
      });
    }
    byName.set(alias, selection);
    const owner = catalog.find((entry) => entry.id === target || entry.id === HINT + target)?.owned_by;
    list(alias, owner ?? defaults.provider);
  }
  // a plugin provider's name is taken even before its plugin loads (a gateway starts its plugins on first use); the
  // turn answers PROVIDER_UNKNOWN, naming what is served, when no plugin serves it
  const plugin = (requested: string): ModelSelection | undefined =>
    isExternalProviderName(requested) ? { reported: requested, provider: requested } : undefined;
  return {
    select: (requested) => byName.get(requested) ?? plugin(requested),
    embedder: (requested) => embedders.get(requested),
    get catalog() {
      const served = pluginProviders().filter((name) => !listed.has(name));
      return served.length === 0 ? catalog : [...catalog, ...served.map((id) => ({ id, owned_by: PLUGIN_OWNER }))];
    },
  };
}

/** What an unknown `model` gets: the OpenAI API's own 404, word for word. */
export function modelNotFound(requested: string): PrxError {
  return new PrxError("MODEL_NOT_FOUND", `The model \`${requested}\` does not exist or you do not have access to it.`, {
    hint: "GET /v1/models lists the models this gateway serves; [gateway] model_aliases maps other names to them",
  });
}

/**
 * The model a request names, as a turn asks for it: the provider and model the turn's plan resolves (none: the
 * configured default), and the name reported back. Throws the OpenAI API's 404 for a model this gateway does not serve.
 */
export function requestedModel(table: ModelTable, requested: string): { reported: string; turn: { provider?: string; model?: string } } {
  const selection = table.select(requested);
  if (!selection) throw modelNotFound(requested);
  const turn = {
    ...(selection.provider ? { provider: selection.provider } : {}),
    ...(selection.model ? { model: selection.model } : {}),
  };
  return { reported: selection.reported, turn };
}
