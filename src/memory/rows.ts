import type { MemoryRecordRow, MemoryRow } from "../storage/types.ts";
import type { MemoryEntry, MemoryRecord } from "./types.ts";

/** A stored row (either backend's) as the entry memory callers see. */
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

export function toRecord(row: MemoryRecordRow): MemoryRecord {
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
