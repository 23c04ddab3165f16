/**
 * PostgreSQL memory stores for the growth suite, one schema per size on the test server, filled with COPY with the entries the SQLite series stores (same words, same seeds), then ANALYZE as prx's bulk
 * writes do. PRX_BENCH_PG_KEEP=1 keeps the schemas (`prx_bench_recall_<size>`) after a run and reuses a complete one on
 * the next (a million entries take minutes to copy); without it each run fills a schema of its own
 * (`prx_bench_recall_<size>_<pid>`), so a run never drops a schema another run is measuring, and drops it once measured.
 */
import { SQL } from "bun";
import { pgStorage, type PgStorage } from "../../src/storage/postgres/index.ts";
import { prng, sentence, wordSource } from "./zipf-text.ts";

const PG_BENCH_SCHEMA_PREFIX = "prx_bench_recall_";
const COPY_BATCH = 50_000;
const AT = "2026-01-01T00:00:00.000Z";

/** The same entries, in the same order, as the SQLite recall series writes. */
export function benchEntries(): (i: number) => { key: string; content: string; category: string } {
  const word = wordSource(42);
  const random = prng(1234);
  return (i) => ({ key: `fact_${i}`, content: sentence(word, random, 6, 18), category: (i % 1000) % 7 === 0 ? "preference" : "core" });
}

const copyText = (value: string) => value.replace(/[\\\t\n\r]/g, (c) => ({ "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" })[c]!);

/**
 * A store of exactly `size` bench entries (reused when kept and complete, else made afresh); `done` closes it and,
 * unless kept, drops its schema.
 */
export async function pgMemoryStore(
  url: string,
  size: number,
): Promise<{ storage: PgStorage; schema: string; done(): Promise<void> }> {
  const keep = process.env.PRX_BENCH_PG_KEEP === "1";
  const schema = keep ? `${PG_BENCH_SCHEMA_PREFIX}${size}` : `${PG_BENCH_SCHEMA_PREFIX}${size}_${process.pid}`;
  let storage = await pgStorage({ url, schema, poolMax: 2 });
  const held = Number((await storage.sql.unsafe("SELECT count(*)::int AS n FROM memories"))[0].n);
  if (!keep || held !== size) {
    await storage.close();
    await dropSchema(url, schema);
    storage = await pgStorage({ url, schema, poolMax: 2 });
    await fill(storage, size);
  }
  return {
    storage,
    schema,
    async done() {
      await storage.close();
      if (!keep) await dropSchema(url, schema);
    },
  };
}

async function fill(storage: PgStorage, size: number): Promise<void> {
  const next = benchEntries();
  for (let stored = 0; stored < size; ) {
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
  await storage.sql.unsafe("ANALYZE memory_terms");
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const sql = new SQL(url, { max: 1 });
  try {
    await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await sql.close();
  }
}
