/**
 * OpenAI wire limits that code outside the schemas needs. Kept apart from openai-wire.ts so importing them does not
 * build the wire schemas (they load on first use; see wire.ts).
 */

/** Embeddings limits: inputs per request and the length of each returned vector. */
export const EMBED_MAX_INPUTS = 2048;
export const EMBED_MAX_DIMENSIONS = 16_384;
