// @prx/kit/memory: the workspace's long-term memory through prx:host/memory, which the tool world imports.
// Needs the `memory` grant in config.toml.
import { recall as hostRecall, store as hostStore, type MemoryEntry } from "prx:host/memory@0.1.0";

export type { MemoryEntry };

export const memory = {
  /** Stores `text`; returns the new entry's id. */
  store: (text: string, category = "core"): string => hostStore(text, category),
  /** The best matches for `query`, best first. */
  recall: (query: string, limit = 5): MemoryEntry[] => hostRecall(query, limit),
};
