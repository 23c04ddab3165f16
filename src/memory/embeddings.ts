import { z } from "zod";
import { PrxError } from "../core/errors.ts";
import { MEMORY_EMBED_TEXT_MAX_CHARS, MEMORY_VECTOR_MAX_DIMENSIONS } from "./limits.ts";

/** The default provider's embeddings (Provider.embed): one vector per text, in order, and the model that made them. */
export type EmbedTexts = (input: string[]) => Promise<{ embeddings: number[][]; model: string }>;

/** What an embedding call must answer before a vector is written or searched with. */
export const EmbeddedSchema = z.object({
  model: z.string().min(1),
  embeddings: z.array(z.array(z.number().finite()).min(1).max(MEMORY_VECTOR_MAX_DIMENSIONS)),
});
export type Embedded = z.infer<typeof EmbeddedSchema>;

/** What is embedded for an entry: its key and content (the category is a label, not meaning), cut to the limit. */
export function embeddingText(key: string, content: string): string {
  return `${key}\n${content}`.slice(0, MEMORY_EMBED_TEXT_MAX_CHARS);
}

/** What is embedded for a query, cut to the limit. */
export function queryText(query: string): string {
  return query.slice(0, MEMORY_EMBED_TEXT_MAX_CHARS);
}

/** Call `embed` and check its answer (one finite vector per text, within the stores' bounds). */
export async function embedChecked(embed: EmbedTexts, input: string[]): Promise<Embedded> {
  const parsed = EmbeddedSchema.safeParse(await embed(input));
  // the provider already checked one vector per text; what memory adds is the stores' bounds
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const why = `${issue.path.join(".") || "answer"}: ${issue.message}`;
    throw new PrxError("MEMORY", `memory embeddings: the provider's answer cannot be stored (${why})`, {
      hint: `check embedding_model of the default provider; vectors must be 1-${MEMORY_VECTOR_MAX_DIMENSIONS} finite numbers`,
    });
  }
  if (parsed.data.embeddings.length !== input.length) {
    throw new PrxError("MEMORY", `memory embeddings: ${input.length} texts sent, ${parsed.data.embeddings.length} vectors returned`, {
      hint: "check embedding_model of the default provider",
    });
  }
  return parsed.data;
}
