import { orOfTerms } from "../storage/sqlite/fts.ts";
import { MEMORY_MAX_QUERY_TERMS } from "./limits.ts";

/**
 * Characters the FTS5 unicode61 tokenizer keeps inside tokens: letters, numbers and marks (plus private use).
 * Everything else (punctuation, quotes, `*`, emoji, whitespace) separates tokens, so extracting runs of these
 * characters gives the same terms the index holds and leaves nothing FTS5 could read as syntax.
 */
const TOKEN = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

/**
 * Tokens of free user text, deduplicated (case-insensitively), at most MEMORY_MAX_QUERY_TERMS of those `keep`
 * accepts (so a long message's stop words do not use up the budget).
 */
export function queryTerms(text: string, keep: (term: string) => boolean = () => true): string[] {
  const seen = new Set<string>();
  const terms: string[] = [];
  for (const match of text.matchAll(TOKEN)) {
    const term = match[0];
    const folded = term.toLowerCase();
    if (seen.has(folded)) continue;
    seen.add(folded);
    if (!keep(term)) continue;
    terms.push(term);
    if (terms.length >= MEMORY_MAX_QUERY_TERMS) break;
  }
  return terms;
}

/**
 * Turn arbitrary user text into a safe FTS5 MATCH expression: every term is a quoted string (so AND, OR,
 * NOT and NEAR are plain words), joined with OR. Returns null when the text has no searchable term.
 */
export function toFtsMatch(text: string): string | null {
  const terms = queryTerms(text);
  return terms.length === 0 ? null : orOfTerms(terms);
}
