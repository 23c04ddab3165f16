import type { MemoryBackend, MemoryEntry } from "./types.ts";
import { validateKey, validateLimit, validateStore } from "./validate.ts";

/** memory.backend = "none": accepts and forgets everything, so turns run without any persistence. */
export class NoneMemory implements MemoryBackend {
  readonly name = "none";

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
