import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../../src/core/database.ts";
import { SqliteMemory } from "../../../src/memory/sqlite.ts";
import { stats, type BenchRow, type BenchSuite } from "../types.ts";

/** Deterministic PRNG (mulberry32) so every run stores and queries the same text. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COMMON = (
  "the a to and of in is it you that he was for on are with as I his they be at one have this from or had by " +
  "not but what all were we when your can said there use an each which she do how their if will up other about out " +
  "many then them these so some her would make like him into time has look two more write go see number no way could"
).split(" ");
const SYLLABLES = "ka lo mi ne ru sa ti vo pe da ge hu ji ko lu ma ni po re si to va we xi yo zu ba ce fi go".split(
  " ",
);

/** A vocabulary of common words followed by pseudo-words, drawn with a Zipf-like distribution like real text. */
function wordSource(seed: number, vocabularySize = 20_000): () => string {
  const random = prng(seed);
  const vocabulary = [...COMMON];
  const made = new Set(vocabulary);
  // the vocabulary is the same for every seed, so queries share words with the stored entries
  const syllables = prng(0x5eed);
  while (vocabulary.length < vocabularySize) {
    const count = 2 + Math.floor(syllables() * 3);
    let word = "";
    for (let i = 0; i < count; i++) word += SYLLABLES[Math.floor(syllables() * SYLLABLES.length)];
    if (!made.has(word)) {
      made.add(word);
      vocabulary.push(word);
    }
  }
  // Zipf with exponent 1: P(rank r) ~ 1/r, sampled through the inverse of the harmonic CDF approximation.
  const harmonic = Math.log(vocabulary.length) + 0.5772;
  return () => {
    const rank = Math.min(vocabulary.length - 1, Math.floor(Math.exp(random() * harmonic - 0.5772)));
    return vocabulary[Math.max(0, rank)]!;
  };
}

function sentence(word: () => string, random: () => number, min: number, max: number): string {
  const length = min + Math.floor(random() * (max - min + 1));
  const words: string[] = [];
  for (let i = 0; i < length; i++) words.push(word());
  return words.join(" ");
}

const SIZES = [10_000, 100_000] as const;
const QUERIES = 200;
const WARMUP = 20;
const BATCH = 1000;

async function measureAt(memory: SqliteMemory, size: number): Promise<{ p50: number; p99: number }> {
  const word = wordSource(7 + size);
  const random = prng(99 + size);
  const queries = Array.from({ length: QUERIES + WARMUP }, () => sentence(word, random, 2, 6));
  for (const q of queries.slice(0, WARMUP)) await memory.recall(q, 5);
  const samples: number[] = [];
  for (const q of queries.slice(WARMUP)) {
    const start = Bun.nanoseconds();
    await memory.recall(q, 5);
    samples.push((Bun.nanoseconds() - start) / 1e6);
  }
  const { p50, p99 } = stats(samples);
  return { p50, p99 };
}

const suite: BenchSuite = async (ctx) => {
  const path = join(ctx.tmp, "memory-bench.db");
  const db = openDatabase(path);
  const rows: BenchRow[] = [];
  try {
    const memory = new SqliteMemory(db);
    const word = wordSource(42);
    const random = prng(1234);
    let stored = 0;
    let storeMs = 0;
    for (const size of SIZES) {
      while (stored < size) {
        const batch = Math.min(BATCH, size - stored);
        const start = Bun.nanoseconds();
        // one transaction per batch, as a busy agent would; stores are otherwise independent upserts
        db.exec("BEGIN");
        for (let i = 0; i < batch; i++) {
          await memory.store(`fact_${stored + i}`, sentence(word, random, 6, 18), i % 7 === 0 ? "preference" : "core");
        }
        db.exec("COMMIT");
        storeMs += (Bun.nanoseconds() - start) / 1e6;
        stored += batch;
      }
      const label = size >= 1000 ? `${size / 1000}k` : String(size);
      const { p50, p99 } = await measureAt(memory, size);
      rows.push({
        suite: "memory",
        name: `memory recall p50 @${label}`,
        value: p50,
        unit: "ms",
        ...(size === 100_000 ? { target: { op: "<=" as const, value: 5 } } : {}),
        note: `${QUERIES} queries of 2-6 Zipf-distributed words, limit 5`,
      });
      rows.push({ suite: "memory", name: `memory recall p99 @${label}`, value: p99, unit: "ms" });
    }
    rows.push({
      suite: "memory",
      name: "memory store throughput",
      value: (stored / storeMs) * 1000,
      unit: "ops/s",
      note: `${stored} upserts of 6-18 word sentences in transactions of ${BATCH}`,
    });
    const single = 500;
    const start = Bun.nanoseconds();
    for (let i = 0; i < single; i++) await memory.store(`single_${i}`, sentence(word, random, 6, 18), "core");
    rows.push({
      suite: "memory",
      name: "memory store throughput (autocommit)",
      value: (single / ((Bun.nanoseconds() - start) / 1e6)) * 1000,
      unit: "ops/s",
      note: "one transaction per store, WAL, synchronous=NORMAL",
    });
  } finally {
    closeDatabase(path);
  }
  return rows;
};

export default suite;
