/** Characters in a token of FTS5's trigram tokenizer: a shorter text matches nothing in a trigram index. */
export const TRIGRAM_CHARS = 3;

/** One term as an FTS5 string (a phrase of one token): never parsed as an operator. */
export function ftsPhrase(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/** Terms as an FTS5 MATCH expression that holds any of them. */
export function orOfTerms(terms: readonly string[]): string {
  return terms.map(ftsPhrase).join(" OR ");
}
