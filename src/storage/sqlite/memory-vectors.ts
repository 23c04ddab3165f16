import type { Database } from "bun:sqlite";
import type { MemoryRow, MemoryScope, MemoryVectorCounts, MemoryVectorPending, MemoryVectorStore, MemoryVectorWrite } from "../types.ts";
import { ensureMemorySchema } from "./memory-schema.ts";
import { keyConditions } from "./memory-keys.ts";

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

/** Bits of the code recall scans per vector, whatever the vector's dimension (96 bytes). */
export const VECTOR_CODE_BITS = 768;

const projections = new Map<number, Int8Array>();

/** VECTOR_CODE_BITS random hyperplanes (+1/-1 components) for vectors of `dims`, the same in every process. */
function projection(dims: number): Int8Array {
  const known = projections.get(dims);
  if (known) return known;
  const planes = new Int8Array(VECTOR_CODE_BITS * dims);
  let state = (0x9e3779b9 ^ dims) >>> 0 || 1;
  for (let i = 0; i < planes.length; i++) {
    // xorshift32: a fixed sequence per dimension, so every writer and reader computes the same code
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    planes[i] = state & 1 ? 1 : -1;
  }
  projections.set(dims, planes);
  return planes;
}

/**
 * The code recall scans: one bit per random hyperplane, set where the vector lies on its positive side, least
 * significant bit first (sqlite-vec's bit vector). The share of differing bits between two codes estimates the
 * angle between the vectors (SimHash), for dense and sparse vectors alike; a vector's plain signs do not, for a
 * sparse one (its zero components all read as "not positive").
 */
export function vectorCode(vector: Float32Array): Uint8Array {
  const dims = vector.length;
  const planes = projection(dims);
  // only the non-zero components count: a sparse vector costs its non-zeros, a dense one every component
  const at: number[] = [];
  for (let j = 0; j < dims; j++) if (vector[j] !== 0) at.push(j);
  const index = Int32Array.from(at);
  const value = Float64Array.from(at, (j) => vector[j]!);
  const code = new Uint8Array(VECTOR_CODE_BITS / 8);
  for (let b = 0; b < VECTOR_CODE_BITS; b++) {
    const row = b * dims;
    let side = 0;
    for (let k = 0; k < index.length; k++) side += planes[row + index[k]!]! * value[k]!;
    if (side > 0) code[b >> 3]! |= 1 << (b & 7);
  }
  return code;
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
 * The entries nearest a query: the code of every vector of the space is scanned by Hamming distance (96 bytes an
 * entry, in C), the `$candidates` nearest are compared by cosine distance of their stored
 * vectors, and only vectors computed for the entry's current text count. Up to `$candidates` vectors of a space the
 * answer is exact. CROSS JOIN keeps the candidates the outer loop (left to choose, SQLite reads every global entry
 * through the session index instead).
 */
function nearestSql(session: boolean, includePrivate: boolean, keys: readonly string[]): string {
  const where = ["v.space = $space", "v.revision = m.updated_at"];
  if (session) where.push(IN_SESSION);
  if (!includePrivate) where.push(NOT_PRIVATE);
  where.push(...keys);
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
        bits.run({ seq: row.seq, space, bits: vectorCode(row.vector) });
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
      bits: vectorCode(query),
      query8: blob(int8(query)),
      space,
      candidates: scope.candidates,
      limit: scope.limit,
      maxDistance: scope.maxDistance,
    };
    if (scope.sessionId) params.session = scope.sessionId;
    const keys = keyConditions(scope.keys);
    Object.assign(params, keys.params);
    const sql = nearestSql(Boolean(scope.sessionId), scope.includePrivate, keys.where);
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
