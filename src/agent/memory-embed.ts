import type { SQL } from "bun";
import type { Config } from "../config/schema.ts";
import { openPgMemory } from "../memory/create.ts";
import type { MemoryBackend } from "../memory/types.ts";
import type { EmbedTexts } from "../memory/postgres-embeddings.ts";
import { isExternalProviderName } from "../providers/resolver.ts";
import type { ProviderResolver } from "../providers/types.ts";

/**
 * The default provider's embeddings for memory's hybrid recall on PostgreSQL, or undefined when it has none: whether
 * it embeds is what the resolver built says (`embedding_model` on an OpenAI-compatible provider; a reliability chain
 * embeds with its primary only). A plugin's provider is not used for memory's vectors. Resolving builds no HTTP
 * client: that loads with the first call.
 */
export function memoryEmbedder(config: Config, providers: ProviderResolver): EmbedTexts | undefined {
  if (isExternalProviderName(config.default_provider)) return undefined;
  const provider = providers.resolve(config.default_provider);
  const embed = provider.embed;
  if (!embed) return undefined;
  return async (input) => {
    const answer = await embed({ input });
    return { embeddings: answer.embeddings, model: answer.model };
  };
}

/** `[memory] backend = "postgres"` on the storage's pool, hybrid when the default provider embeds. */
export function openPgMemoryFor(sql: SQL, config: Config, providers: ProviderResolver): Promise<MemoryBackend> {
  return openPgMemory(sql, memoryEmbedder(config, providers), config.memory.vector_min_similarity);
}
