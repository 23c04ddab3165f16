import type { Config } from "../config/schema.ts";
import { PrxError } from "../core/errors.ts";
import type { EmbedTexts } from "../memory/postgres-embeddings.ts";
import type { Provider, ProviderResolver } from "../providers/types.ts";

/** True when the default provider is configured for embeddings (`embedding_model`, OpenAI-compatible kinds). */
export function defaultProviderEmbeds(config: Config): boolean {
  const name = config.default_provider;
  const settings = Object.hasOwn(config.providers, name) ? config.providers[name] : undefined;
  return settings !== undefined && settings.kind === "openai-compatible" && settings.embedding_model !== undefined;
}

/**
 * The default provider's embeddings for memory's hybrid recall on PostgreSQL, or undefined when it has none. The
 * provider is resolved on the first call, so opening a host costs nothing more.
 */
export function memoryEmbedder(config: Config, providers: ProviderResolver): EmbedTexts | undefined {
  if (!defaultProviderEmbeds(config)) return undefined;
  const name = config.default_provider;
  let provider: Provider | undefined;
  return async (input) => {
    provider ??= providers.resolve(name);
    if (!provider.embed) {
      throw new PrxError("MEMORY", `memory embeddings: provider "${name}" serves no embeddings`, {
        hint: `set embedding_model in [providers.${name}] (OpenAI-compatible providers)`,
      });
    }
    const answer = await provider.embed({ input });
    return { embeddings: answer.embeddings, model: answer.model };
  };
}
