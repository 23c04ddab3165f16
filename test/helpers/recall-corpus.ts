/**
 * The labelled recall corpus (test/fixtures/recall): 200 personal-assistant notes in the `prx memory export`
 * format and queries, each with the keys of the notes relevant to it (none for some). Shared by the corpus test
 * and the `recall` bench suite.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { MemoryBackend } from "../../src/memory/types.ts";

const DIR = join(import.meta.dir, "../fixtures/recall");
export const NOTES_PATH = join(DIR, "notes.jsonl");
export const CUTOFF = 5;

export interface CorpusNote {
  key: string;
  content: string;
  category: string;
}

export interface CorpusQuery {
  query: string;
  relevant: string[];
}

export function corpusNotes(): CorpusNote[] {
  return readFileSync(NOTES_PATH, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as CorpusNote);
}

export function corpusQueries(): CorpusQuery[] {
  return JSON.parse(readFileSync(join(DIR, "queries.json"), "utf8")) as CorpusQuery[];
}

/**
 * Questions answered only by meaning (paraphrase, synonyms: no word of theirs is in the note they ask about), for
 * hybrid recall. The fake embedding server folds their words into the notes' concepts (test/fakes/openai-server.ts).
 */
export function meaningQueries(): CorpusQuery[] {
  return JSON.parse(readFileSync(join(DIR, "meaning.json"), "utf8")) as CorpusQuery[];
}

/** Every labelled query: found by exact terms, found only by meaning, and about nothing any note says. */
export function hybridCorpusQueries(): CorpusQuery[] {
  return [...corpusQueries(), ...meaningQueries()];
}

export async function storeCorpus(memory: MemoryBackend): Promise<void> {
  for (const note of corpusNotes()) await memory.store(note.key, note.content, note.category);
}

export interface QueryOutcome extends CorpusQuery {
  returned: string[];
}

export interface CorpusScores {
  /** Relevant notes among everything returned in the top CUTOFF, over all queries (hits for queries with no relevant note count as misses). */
  precision: number;
  /** Mean over queries with relevant notes of the share of them (at most CUTOFF) found in the top CUTOFF. */
  recall: number;
  /** Share of the queries with no relevant note that returned nothing. */
  noHitRate: number;
  /** Mean per-query precision over queries that returned something (information). */
  macroPrecision: number;
  outcomes: QueryOutcome[];
}

/** Run every labelled query through `recall` (limit CUTOFF) and score the answers. */
export async function scoreCorpus(
  recall: (query: string) => Promise<string[]>,
  queries: CorpusQuery[] = corpusQueries(),
): Promise<CorpusScores> {
  const outcomes: QueryOutcome[] = [];
  for (const q of queries) outcomes.push({ ...q, returned: (await recall(q.query)).slice(0, CUTOFF) });
  let returned = 0;
  let relevantReturned = 0;
  const recalls: number[] = [];
  const precisions: number[] = [];
  let none = 0;
  let noneSilent = 0;
  for (const o of outcomes) {
    const hits = o.returned.filter((key) => o.relevant.includes(key)).length;
    returned += o.returned.length;
    relevantReturned += hits;
    if (o.returned.length > 0) precisions.push(hits / o.returned.length);
    if (o.relevant.length > 0) recalls.push(hits / Math.min(o.relevant.length, CUTOFF));
    else {
      none++;
      if (o.returned.length === 0) noneSilent++;
    }
  }
  const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  return {
    precision: returned === 0 ? 0 : relevantReturned / returned,
    recall: mean(recalls),
    noHitRate: none === 0 ? 1 : noneSilent / none,
    macroPrecision: mean(precisions),
    outcomes,
  };
}

/** Full-text alone against hybrid recall on every labelled query, as the hybrid tests of both backends print it. */
export async function compareHybrid(
  fullText: (query: string) => Promise<string[]>,
  hybrid: (query: string) => Promise<string[]>,
): Promise<{ fullText: CorpusScores; hybrid: CorpusScores; meaning: { fullText: CorpusScores; hybrid: CorpusScores }; line: string }> {
  const queries = hybridCorpusQueries();
  const a = await scoreCorpus(fullText, queries);
  const b = await scoreCorpus(hybrid, queries);
  const meaning = { fullText: await scoreCorpus(fullText, meaningQueries()), hybrid: await scoreCorpus(hybrid, meaningQueries()) };
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  const line =
    `${queries.length} queries: full-text precision@5 ${pct(a.precision)} recall@5 ${pct(a.recall)}; ` +
    `hybrid precision@5 ${pct(b.precision)} recall@5 ${pct(b.recall)}; meaning-only recall@5 ${pct(meaning.fullText.recall)} -> ` +
    `${pct(meaning.hybrid.recall)}; unrelated questions silent ${pct(a.noHitRate)} / ${pct(b.noHitRate)}`;
  return { fullText: a, hybrid: b, meaning, line };
}
