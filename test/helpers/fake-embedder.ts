import { memoryEmbedder } from "../../src/agent/memory-embed.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { createProviderResolver } from "../../src/providers/index.ts";
import type { EmbedTexts } from "../../src/memory/postgres-embeddings.ts";

/** Memory's embedder as a host builds it, on an OpenAI-compatible provider at `url` (the fake) with `embedding_model`. */
export function fakeMemoryEmbedder(url: string): EmbedTexts {
  const config = ConfigSchema.parse({
    default_provider: "fake",
    providers: { fake: { base_url: url, embedding_model: "fake-embed" } },
    reliability: { retries: 0 },
  });
  return memoryEmbedder(config, createProviderResolver(config, { env: {} }))!;
}
