import type { Database } from "bun:sqlite";
import type { MemoryRow, MemoryScope, MemoryVectorCounts, MemoryVectorPending, MemoryVectorStore, MemoryVectorWrite } from "../types.ts";
import { ensureMemorySchema } from "./memory-schema.ts";

const MEMORY_COLUMNS = "m.id, m.key, m.content, m.category, m.session_id, m.updated_at, m.private";
const IN_SESSION = "(m.session_id = $session OR m.session_id IS NULL)";
const NOT_PRIVATE = "m.private = 0";

const blob = (vector: Float32Array | Int8Array) => new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);

/**
 * A vector as stored: int8, scaled so its largest component is 127. Cosine distance ignores a vector's scale, so
 * only rounding is lost (a few thousandths of similarity), and an entry takes 1 byte a dimension, not 4 (768
 * dimensions: 5 rows to a page instead of 1).
 */
function int8(vector: Float32Array): Int8Array {
  let max = 0;
  for (const x of vector) max = Math.max(max, Math.abs(x));
  const out = new Int8Array(vector.length);
  if (max === 0) return out;
  for (let i = 0; i < vector.length; i++) out[i] = Math.round((vector[i]! / max) * 127);
  return out;
}

/** One bit a dimension, set where the component is positive, least significant bit first: sqlite-vec's bit vector. */
export function signBits(vector: Float32Array): Uint8Array {
  const bits = new Uint8Array(Math.ceil(vector.length / 8));
  for (let i = 0; i < vector.length; i++) if (vector[i]! > 0) bits[i >> 3]! |= 1 << (i & 7);
  return bits;
}

const SQL = {
  pendingWithKey: `SELECT m.seq, m.key, m.content, m.updated_at FROM memories m WHERE m.key = $key
    UNION ALL
    SELECT * FROM (SELECT m.seq, m.key, m.content, m.updated_at FROM memory_vector_pending p JOIN memories m ON m.seq = p.seq
      WHERE m.key <> $key ORDER BY p.seq LIMIT $limit)`,
  pending: `SELECT m.seq, m.key, m.content, m.updated_at FROM memory_vector_pending p JOIN memories m ON m.seq = p.seq
    ORDER BY p.seq LIMIT $limit`,
  first: "SELECT seq, key, content, updated_at FROM memories ORDER BY seq LIMIT 1",
  space: "SELECT space FROM memory_vector_spaces WHERE model = $model AND dims = $dims",
  addSpace: "INSERT INTO memory_vector_spaces (model, dims) VALUES ($model, $dims) ON CONFLICT DO NOTHING",
  // only for an entry that still exists: one deleted meanwhile gets no orphan vector
  vector: `INSERT INTO memory_vectors (seq, space, revision, embedding)
    SELECT $seq, $space, $revision, $embedding WHERE EXISTS (SELECT 1 FROM memories WHERE seq = $seq)
    ON CONFLICT (seq) DO UPDATE SET space = excluded.space, revision = excluded.revision, embedding = excluded.embedding`,
  bits: `INSERT INTO memory_vector_bits (seq, space, bits)
    SELECT $seq, $space, $bits WHERE EXISTS (SELECT 1 FROM memories WHERE seq = $seq)
    ON CONFLICT (seq) DO UPDATE SET space = excluded.space, bits = excluded.bits`,
  done: "DELETE FROM memory_vector_pending WHERE seq = $seq AND EXISTS (SELECT 1 FROM memories WHERE seq = $seq AND updated_at = $revision)",
  requeueOthers: `INSERT OR IGNORE INTO memory_vector_pending (seq) SELECT seq FROM memory_vectors WHERE space <> $space`,
  requeueAll: "INSERT OR IGNORE INTO memory_vector_pending (seq) SELECT seq FROM memories",
  entries: "SELECT count(*) AS n FROM memories",
  counts: `SELECT (SELECT count(*) FROM memory_vectors v JOIN memories m ON m.seq = v.seq AND m.updated_at = v.revision) AS vectors,
    (SELECT count(*) FROM memory_vector_pending) AS pending`,
} as const;

/**
 * The entries nearest a query: the sign bits of every vector of the space are scanned by Hamming distance (96 bytes
 * an entry at 768 dimensions, in C), the `$candidates` nearest are compared by cosine distance of their stored
 * vectors, and only vectors computed for the entry's current text count. Up to `$candidates` vectors of a space the
 * answer is exact. CROSS JOIN keeps the candidates the outer loop (left to choose, SQLite reads every global entry
 * through the session index instead).
 */
function nearestSql(session: boolean, includePrivate: boolean): string {
  const where = ["v.space = $space", "v.revision = m.updated_at"];
  if (session) where.push(IN_SESSION);
  if (!includePrivate) where.push(NOT_PRIVATE);
  return `WITH q AS (SELECT $bits AS bits),
    near AS (SELECT b.seq FROM memory_vector_bits b, q WHERE b.space = $space
      ORDER BY vec_distance_hamming(vec_bit(b.bits), vec_bit(q.bits)) LIMIT $candidates)
    SELECT * FROM (SELECT ${MEMORY_COLUMNS}, vec_distance_cosine(vec_int8(v.embedding), vec_int8($query8)) AS distance
      FROM near CROSS JOIN memory_vectors v ON v.seq = near.seq CROSS JOIN memories m ON m.seq = v.seq
      WHERE ${where.join(" AND ")} ORDER BY distance LIMIT $limit)
    WHERE distance <= $maxDistance`;
}

/**
 * Memory's vectors; tables in memory-schema.ts. Writing needs no extension (`prx storage copy` writes vectors from
 * PostgreSQL on any connection); `nearest` needs sqlite-vec loaded (vector-extension.ts).
 */
export class SqliteMemoryVectorStore implements MemoryVectorStore {
  private readonly spaces = new Map<string, number>();

  constructor(
    private readonly db: Database,
    options: { mmapBytes?: number } = {},
  ) {
    ensureMemorySchema(db);
    if (options.mmapBytes !== undefined) db.exec(`PRAGMA mmap_size = ${Math.max(0, Math.floor(options.mmapBytes))}`);
  }

  pending(key: string | null, limit: number): MemoryVectorPending[] {
    if (key === null) return this.db.query<MemoryVectorPending, { limit: number }>(SQL.pending).all({ limit });
    return this.db.query<MemoryVectorPending, { key: string; limit: number }>(SQL.pendingWithKey).all({ key, limit });
  }

  first(): MemoryVectorPending | null {
    return this.db.query<MemoryVectorPending, []>(SQL.first).get();
  }

  write(model: string, rows: MemoryVectorWrite[]): void {
    const vector = this.db.query(SQL.vector);
    const bits = this.db.query(SQL.bits);
    const done = this.db.query(SQL.done);
    this.db.transaction(() => {
      for (const row of rows) {
        const space = this.space(model, row.vector.length);
        vector.run({ seq: row.seq, space, revision: row.revision, embedding: blob(int8(row.vector)) });
        bits.run({ seq: row.seq, space, bits: signBits(row.vector) });
        done.run({ seq: row.seq, revision: row.revision });
      }
    }).immediate();
  }

  requeueOthers(model: string, dims: number): number {
    const space = this.space(model, dims);
    return this.db.query(SQL.requeueOthers).run({ space }).changes;
  }

  requeueAll(): number {
    this.db.query(SQL.requeueAll).run();
    return this.db.query<{ n: number }, []>(SQL.entries).get()?.n ?? 0;
  }

  nearest(
    query: Float32Array,
    model: string,
    scope: MemoryScope & { limit: number; candidates: number; maxDistance: number },
  ): Array<MemoryRow & { distance: number }> {
    // a space no vector was written in (another process wrote them, or none yet) is looked up, never made
    const dims = query.length;
    const space = this.spaces.get(`${model}\0${dims}`) ?? this.db.query<{ space: number }, { model: string; dims: number }>(SQL.space).get({ model, dims })?.space;
    if (space === undefined) return [];
    const params: Record<string, string | number | Uint8Array> = {
      bits: signBits(query),
      query8: blob(int8(query)),
      space,
      candidates: scope.candidates,
      limit: scope.limit,
      maxDistance: scope.maxDistance,
    };
    if (scope.sessionId) params.session = scope.sessionId;
    const sql = nearestSql(Boolean(scope.sessionId), scope.includePrivate);
    return this.db.query<MemoryRow & { distance: number }, Record<string, string | number | Uint8Array>>(sql).all(params);
  }

  counts(): MemoryVectorCounts {
    return this.db.query<MemoryVectorCounts, []>(SQL.counts).get() ?? { vectors: 0, pending: 0 };
  }

  /** The space of (model, dims), made on first use. */
  private space(model: string, dims: number): number {
    const name = `${model}\0${dims}`;
    const known = this.spaces.get(name);
    if (known !== undefined) return known;
    this.db.query(SQL.addSpace).run({ model, dims });
    const space = this.db.query<{ space: number }, { model: string; dims: number }>(SQL.space).get({ model, dims })!.space;
    this.spaces.set(name, space);
    return space;
  }
}
