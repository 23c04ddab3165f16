/**
 * Recall quality and speed. Quality: the labelled corpus (test/fixtures/recall, 200 notes, queries with 1..n
 * relevant notes and queries with none) scored at a cut-off of 5. Speed: the corpus queries, as user messages,
 * against a store of 10,000 notes (the corpus plus Zipf-distributed filler), through the backend's recall as
 * auto-recall calls it.
 */
import { join } from "node:path";
import { openSqliteStorage } from "../../../src/storage/index.ts";
import { SqliteMemory } from "../../../src/memory/sqlite.ts";
import { corpusNotes, corpusQueries, CUTOFF, scoreCorpus, storeCorpus } from "../../helpers/recall-corpus.ts";
import { stats, type BenchRow, type BenchSuite } from "../types.ts";
import { prng, sentence, wordSource } from "../zipf-text.ts";

const LATENCY_ENTRIES = 10_000;
const ROUNDS = 4;
const WARMUP_ROUNDS = 1;

async function quality(tmp: string): Promise<BenchRow[]> {
  const path = join(tmp, "recall-quality.db");
  const storage = openSqliteStorage(path);
  const memory = new SqliteMemory(() => storage.memory);
  try {
    await storeCorpus(memory);
    const s = await scoreCorpus(async (q) => (await memory.recall(q, CUTOFF)).map((e) => e.key));
    const queries = corpusQueries();
    const withRelevant = queries.filter((q) => q.relevant.length > 0).length;
    const corpus = `${corpusNotes().length} notes, ${withRelevant} queries with relevant notes, ${queries.length - withRelevant} without`;
    return [
      {
        suite: "recall",
        name: "corpus precision@5",
        value: s.precision * 100,
        unit: "%",
        target: { op: ">=", value: 80 },
        note: `${corpus}; relevant among all returned (micro); per query ${(s.macroPrecision * 100).toFixed(1)} %`,
      },
      { suite: "recall", name: "corpus recall@5", value: s.recall * 100, unit: "%", note: corpus },
      {
        suite: "recall",
        name: "corpus no-hit rate (queries with no related note)",
        value: s.noHitRate * 100,
        unit: "%",
        target: { op: ">=", value: 100 },
      },
    ];
  } finally {
    await storage.close();
  }
}

async function latency(tmp: string): Promise<BenchRow[]> {
  const path = join(tmp, "recall-latency.db");
  const storage = openSqliteStorage(path);
  const db = storage.db;
  const memory = new SqliteMemory(() => storage.memory);
  try {
    await storeCorpus(memory);
    const word = wordSource(11);
    const random = prng(2024);
    db.exec("BEGIN");
    for (let i = corpusNotes().length; i < LATENCY_ENTRIES; i++) {
      await memory.store(`filler_${i}`, sentence(word, random, 6, 18), i % 5 === 0 ? "preferences" : "core");
    }
    db.exec("COMMIT");
    const queries = corpusQueries().map((q) => q.query);
    const samples: number[] = [];
    for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
      for (const query of queries) {
        const start = Bun.nanoseconds();
        await memory.recall(query, 5, "bench-session");
        if (round >= WARMUP_ROUNDS) samples.push((Bun.nanoseconds() - start) / 1e6);
      }
    }
    const { p50, p99 } = stats(samples);
    const note = `${samples.length} recalls of the corpus queries (user messages), limit 5, in a session`;
    return [
      { suite: "recall", name: "recall p50 @10k notes", value: p50, unit: "ms", target: { op: "<=", value: 5 }, note },
      { suite: "recall", name: "recall p99 @10k notes", value: p99, unit: "ms" },
    ];
  } finally {
    await storage.close();
  }
}

const suite: BenchSuite = async ({ tmp }) => [...(await quality(tmp)), ...(await latency(tmp))];

export default suite;
