import type { MemoryEntry, MemoryRecord } from "./types.ts";

/** Columns every entry-returning statement selects, with `m` the memories table. */
export const MEMORY_COLUMNS = "m.id, m.key, m.content, m.category, m.session_id, m.updated_at, m.private";

export interface MemoryRow {
  id: string;
  key: string;
  content: string;
  category: string;
  session_id: string | null;
  updated_at: string;
  private: number;
  score?: number;
}

export interface RecordRow {
  seq: number;
  key: string;
  content: string;
  category: string;
  session_id: string | null;
  created_at: string;
  updated_at: string;
  private: number;
}

export function toEntry(row: MemoryRow): MemoryEntry {
  return {
    id: row.id,
    key: row.key,
    content: row.content,
    category: row.category,
    session_id: row.session_id,
    timestamp: row.updated_at,
    score: row.score ?? null,
    private: row.private !== 0,
  };
}

export function toRecord(row: RecordRow): MemoryRecord {
  return {
    key: row.key,
    content: row.content,
    category: row.category,
    private: row.private !== 0,
    session_id: row.session_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
