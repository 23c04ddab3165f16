import { PrxError } from "../core/errors.ts";
import type { ImportOutcome, MemoryBackend, MemoryCatalog, MemoryRecord } from "./types.ts";

/**
 * What the memory commands and the memory API do beyond the MemoryBackend calls, for any backend. Listing and
 * export need a catalog (sqlite, none); a `wasm:` backend has none because the storage WIT cannot enumerate.
 */

export function requireCatalog(backend: MemoryBackend, what: string): MemoryCatalog {
  if (backend.catalog) return backend.catalog;
  throw new PrxError("MEMORY", `memory backend ${backend.name} cannot ${what} (the storage plugin interface has no listing)`, {
    status: 501,
    hint: 'search it by words (prx memory search, GET /api/memory/search), or use memory.backend = "sqlite"',
  });
}

/**
 * Store validated records. With a catalog the import is one transaction (all or nothing, timestamps kept).
 * Without one (a `wasm:` backend) entries are stored one by one in file order and get the import time; if one
 * fails, those before it stay stored and the error says how many.
 */
export async function importInto(backend: MemoryBackend, records: MemoryRecord[]): Promise<ImportOutcome> {
  if (backend.catalog) return backend.catalog.importRecords(records);
  const outcome: ImportOutcome = { created: 0, replaced: 0 };
  for (const [index, record] of records.entries()) {
    try {
      const existed = (await backend.get(record.key)) !== null;
      await backend.store(record.key, record.content, record.category, record.session_id, { private: record.private });
      if (existed) outcome.replaced++;
      else outcome.created++;
    } catch (cause) {
      const message = cause instanceof Error ? cause.message : String(cause);
      throw new PrxError("MEMORY", `memory import stopped at entry ${index + 1} (${record.key}): ${message}`, {
        cause,
        hint: `the ${index} entries before it were stored by ${backend.name}; fix the entry and import the rest again`,
        details: { stored: index },
      });
    }
  }
  return outcome;
}
