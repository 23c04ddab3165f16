import { join } from "node:path";
import { openSqliteStorage } from "../../../src/storage/index.ts";
import { SqliteMemory } from "../../../src/memory/sqlite.ts";
import { stats, type BenchRow, type BenchSuite } from "../types.ts";
import { prng, sentence, wordSource } from "../zipf-text.ts";

const SIZES = [10_000, 100_000] as const;
const QUICK_SIZES = [1_000, 10_000] as const;
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
  const storage = openSqliteStorage(path);
  const db = storage.db;
  const rows: BenchRow[] = [];
  try {
    const memory = new SqliteMemory(() => storage.memory);
    const word = wordSource(42);
    const random = prng(1234);
    let stored = 0;
    let storeMs = 0;
    for (const size of ctx.quick ? QUICK_SIZES : SIZES) {
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
    await storage.close();
  }
  return rows;
};

export default suite;
