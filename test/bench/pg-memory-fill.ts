/**
 * A PostgreSQL memory store for the growth suite, in a schema of its own on the test server, filled with COPY (the
 * entries the SQLite series stores: same words, same seeds). PRX_BENCH_PG_KEEP=1 keeps the schema after a run and
 * reuses what it holds on the next one (a million entries take minutes to copy); without it the schema is dropped.
 */
import { SQL } from "bun";
import { pgStorage, type PgStorage } from "../../src/storage/postgres/index.ts";
import { prng, sentence, wordSource } from "./zipf-text.ts";

export const PG_BENCH_SCHEMA = "prx_bench_recall";
const COPY_BATCH = 50_000;
const AT = "2026-01-01T00:00:00.000Z";

export interface PgMemoryFixture {
  storage: PgStorage;
  /** Brings the store to `size` entries (never shrinks it). */
  grow(size: number): Promise<void>;
  close(): Promise<void>;
}

/** The same entries, in the same order, as the SQLite recall series writes. */
export function benchEntries(): (i: number) => { key: string; content: string; category: string } {
  const word = wordSource(42);
  const random = prng(1234);
  return (i) => ({ key: `fact_${i}`, content: sentence(word, random, 6, 18), category: (i % 1000) % 7 === 0 ? "preference" : "core" });
}

const copyText = (value: string) => value.replace(/[\\\t\n\r]/g, (c) => ({ "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" })[c]!);

export async function pgMemoryFixture(url: string): Promise<PgMemoryFixture> {
  const keep = process.env.PRX_BENCH_PG_KEEP === "1";
  if (!keep) await dropBenchSchema(url);
  const storage = await pgStorage({ url, schema: PG_BENCH_SCHEMA, poolMax: 2 });
  const next = benchEntries();
  const held = Number((await storage.sql.unsafe("SELECT count(*)::int AS n FROM memories"))[0].n);
  // the generator is sequential: replay the entries already held so new ones continue the same stream
  for (let i = 0; i < held; i++) next(i);
  let stored = held;
  return {
    storage,
    async grow(size) {
      if (stored >= size) return;
      while (stored < size) {
        const batch = Math.min(COPY_BATCH, size - stored);
        let text = "";
        for (let i = stored; i < stored + batch; i++) {
          const e = next(i);
          text += `mem_bench_${i}\t${copyText(e.key)}\t${copyText(e.content)}\t${e.category}\t\\N\t${AT}\t${AT}\tf\n`;
        }
        const writer = storage.sql
          .unsafe("COPY memories (id, key, content, category, session_id, created_at, updated_at, private) FROM STDIN")
          .writable()
          .getWriter();
        await writer.write(text);
        await writer.close();
        stored += batch;
      }
      // what prx does after its own bulk writes (import, copy): fresh statistics for the planner
      await storage.sql.unsafe("ANALYZE memories");
    },
    async close() {
      await storage.close();
      if (!keep) await dropBenchSchema(url);
    },
  };
}

async function dropBenchSchema(url: string): Promise<void> {
  const sql = new SQL(url, { max: 1 });
  try {
    await sql.unsafe(`DROP SCHEMA IF EXISTS "${PG_BENCH_SCHEMA}" CASCADE`);
  } finally {
    await sql.close();
  }
}
