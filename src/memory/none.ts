import { PrxError } from "../core/errors.ts";
import type { MemoryBackend, MemoryCatalog, MemoryEntry } from "./types.ts";
import { validateKey, validateLimit, validateStore } from "./validate.ts";

/** Nothing to list or export; an import is refused rather than silently kept nowhere. */
const EMPTY_CATALOG: MemoryCatalog = {
  list: () => ({ entries: [], total: 0 }),
  records: () => [],
  importRecords: () => {
    throw new PrxError("MEMORY", 'memory.backend is "none": an import would keep nothing', {
      status: 409,
      hint: 'set memory.backend = "sqlite" in config.toml to keep memories',
    });
  },
  forgetSession: () => 0,
};

/** memory.backend = "none": accepts and forgets everything, so turns run without any persistence. */
export class NoneMemory implements MemoryBackend {
  readonly name = "none";
  readonly catalog = EMPTY_CATALOG;

  async store(key: string, content: string, category: string, sessionId?: string | null): Promise<void> {
    validateStore(key, content, category, sessionId);
  }

  async recall(_query: string, limit: number): Promise<MemoryEntry[]> {
    validateLimit(limit);
    return [];
  }

  async get(key: string): Promise<MemoryEntry | null> {
    validateKey(key);
    return null;
  }

  async forget(key: string): Promise<boolean> {
    validateKey(key);
    return false;
  }

  async count(): Promise<number> {
    return 0;
  }

  async health(): Promise<boolean> {
    return true;
  }
}
