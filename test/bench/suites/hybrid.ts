/**
 * Hybrid recall on SQLite (sqlite-vec) against full-text search alone, in one table: recall p50/p99 at 10k and 100k
 * memories with 768-dimension vectors, store throughput with the entry's embedding (one provider call a store) and
 * with reindex's batches, and database size per 1k memories. Embeddings come from the fake OpenAI server over HTTP
 * (queries and stores, as a provider would answer); the filler's vectors are the same function computed in-process,
 * so filling 100k entries costs no 100k HTTP answers.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { SqliteMemory } from "../../../src/memory/sqlite.ts";
import { SqliteEmbeddings } from "../../../src/memory/sqlite-embeddings.ts";
import { MEMORY_REINDEX_BATCH } from "../../../src/memory/limits.ts";
import { openSqliteStorage } from "../../../src/storage/index.ts";
import type { MemoryVectorStore } from "../../../src/storage/types.ts";
import { FAKE_EMBEDDING_DIMENSIONS, fakeEmbedding, startFakeOpenAI } from "../../fakes/openai-server.ts";
import { fakeMemoryEmbedder } from "../../helpers/fake-embedder.ts";
import { corpusQueries } from "../../helpers/recall-corpus.ts";
import { stats, type BenchRow, type BenchSuite } from "../types.ts";
import { prng, sentence, wordSource } from "../zipf-text.ts";

const SIZES = [10_000, 100_000] as const;
const QUICK_SIZES = [1_000, 10_000] as const;
const TARGET_P50_MS: Record<number, number> = { 10_000: 15, 100_000: 60 };
const FILL_BATCH = 1000;
const QUERIES = 100;
const WARMUP = 10;
const STORES = 300;

function fill(memory: SqliteMemory, vectors: MemoryVectorStore, db: import("bun:sqlite").Database, from: number, to: number): void {
  const word = wordSource(7);
  const random = prng(99 + from);
  for (let start = from; start < to; start += FILL_BATCH) {
    const rows: Array<{ seq: number; revision: string; vector: Float32Array }> = [];
    db.exec("BEGIN");
    for (let i = start; i < Math.min(to, start + FILL_BATCH); i++) {
      const content = sentence(word, random, 6, 18);
      const at = new Date().toISOString();
      const key = `fact_${i}`;
      db.query("INSERT INTO memories (id, key, content, category, session_id, created_at, updated_at, private) VALUES (?, ?, ?, 'core', NULL, ?, ?, 0)").run(
        `mem_bench_${i}`,
        key,
        content,
        at,
        at,
      );
      const seq = (db.query("SELECT seq FROM memories WHERE key = ?").get(key) as { seq: number }).seq;
      rows.push({ seq, revision: at, vector: Float32Array.from(fakeEmbedding(`${key}\n${content}`)) });
    }
    db.exec("COMMIT");
    vectors.write("fake-embed", rows);
  }
  void memory;
}

async function latency(memory: SqliteMemory, queries: string[]): Promise<{ p50: number; p99: number }> {
  for (const q of queries.slice(0, WARMUP)) await memory.recall(q, 5, "bench-session", { relevantOnly: true });
  const samples: number[] = [];
  for (const q of queries.slice(WARMUP)) {
    const start = Bun.nanoseconds();
    await memory.recall(q, 5, "bench-session", { relevantOnly: true });
    samples.push((Bun.nanoseconds() - start) / 1e6);
  }
  const { p50, p99 } = stats(samples);
  return { p50, p99 };
}

function fileMb(path: string, db: import("bun:sqlite").Database): number {
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  return statSync(path).size / 1024 / 1024;
}

const suite: BenchSuite = async (ctx) => {
  const fake = startFakeOpenAI();
  const path = join(ctx.tmp, "hybrid-bench.db");
  const storage = openSqliteStorage(path);
  const db = storage.db;
  const rows: BenchRow[] = [];
  try {
    const opened = await storage.memoryVectors(join(ctx.tmp, "cache"));
    if ("unavailable" in opened) throw new Error(opened.unavailable);
    const vectors = opened;
    const embeddings = new SqliteEmbeddings(vectors, fakeMemoryEmbedder(fake.url));
    const hybrid = new SqliteMemory(() => storage.memory, { vectors, embeddings });
    const fullText = new SqliteMemory(() => storage.memory);
    const base = corpusQueries().map((q) => q.query);
    const queries = Array.from({ length: QUERIES + WARMUP }, (_, i) => base[i % base.length]!);
    const note = `${QUERIES} corpus questions, limit 5, in a session; ${FAKE_EMBEDDING_DIMENSIONS}-dimension vectors`;
    let filled = 0;
    for (const size of ctx.quick ? QUICK_SIZES : SIZES) {
      fill(hybrid, vectors, db, filled, size);
      filled = size;
      const label = `${size / 1000}k`;
      const h = await latency(hybrid, queries);
      const f = await latency(fullText, queries);
      const target = TARGET_P50_MS[size];
      rows.push(
        { suite: "hybrid", name: `hybrid recall p50 @${label}`, value: h.p50, unit: "ms", ...(target ? { target: { op: "<=" as const, value: target } } : {}), note: `${note}; includes the query's embedding over HTTP` },
        { suite: "hybrid", name: `hybrid recall p99 @${label}`, value: h.p99, unit: "ms" },
        { suite: "hybrid", name: `full-text recall p50 @${label}`, value: f.p50, unit: "ms", note },
        { suite: "hybrid", name: `full-text recall p99 @${label}`, value: f.p99, unit: "ms" },
      );
    }
    // size: the same entries without their vectors (the tables of full-text recall alone) against with them
    const withVectors = fileMb(path, db);
    db.exec("DELETE FROM memory_vector_bits; DELETE FROM memory_vectors; VACUUM");
    const withoutVectors = fileMb(path, db);
    rows.push(
      { suite: "hybrid", name: "database size per 1k memories, full-text", value: withoutVectors / (filled / 1000), unit: "MB", note: `${filled} memories of 6-18 words` },
      { suite: "hybrid", name: "database size per 1k memories, hybrid", value: withVectors / (filled / 1000), unit: "MB", note: "int8 vector + 96-byte code per memory" },
    );
    // stores: one embedding call per store (the entry and what waits), then reindex's batches
    const word = wordSource(3);
    const random = prng(5);
    let start = Bun.nanoseconds();
    for (let i = 0; i < STORES; i++) await hybrid.store(`stored_${i}`, sentence(word, random, 6, 18), "core");
    rows.push({ suite: "hybrid", name: "hybrid store throughput", value: (STORES / ((Bun.nanoseconds() - start) / 1e6)) * 1000, unit: "ops/s", note: "one store and one embedding call (fake server, HTTP) each, autocommit" });
    start = Bun.nanoseconds();
    for (let i = 0; i < STORES; i++) await fullText.store(`plain_${i}`, sentence(word, random, 6, 18), "core");
    rows.push({ suite: "hybrid", name: "full-text store throughput", value: (STORES / ((Bun.nanoseconds() - start) / 1e6)) * 1000, unit: "ops/s", note: "autocommit" });
    const waiting = vectors.counts().pending;
    start = Bun.nanoseconds();
    const embedded = await embeddings.reindex({ batch: MEMORY_REINDEX_BATCH });
    rows.push({ suite: "hybrid", name: "reindex throughput (embedding batched)", value: (embedded / ((Bun.nanoseconds() - start) / 1e6)) * 1000, unit: "ops/s", note: `${embedded} entries (${waiting} waiting), ${MEMORY_REINDEX_BATCH} per embedding call` });
    return rows;
  } finally {
    await storage.close();
    await fake.stop();
  }
};

export default suite;
