import { z } from "zod";
import { PrxError } from "../../core/errors.ts";
import { hasContentTerms } from "../../memory/relevance.ts";
import { validateKey, validateLimit, validateStore } from "../../memory/validate.ts";
import { PRIVATE_CATEGORY, type MemoryBackend, type MemoryEntry, type RecallOptions } from "../../memory/types.ts";
import { describeCapability, guestCall } from "./call.ts";
import { parseExportName, WASM_PROVIDER_PREFIX } from "./provider.ts";
import type { AdapterContext, CapabilityAdapter, StorageAdapter } from "./types.ts";

/**
 * Storage adapters: a capability's guest exports the storage world (store-memory, recall-memory, forget-memory,
 * count-memories, health-check, name) and becomes a MemoryBackend reachable as `memory.backend = "wasm:<name>"`.
 * Inputs are validated with the same limits as the built-in backends before the guest sees them.
 *
 * `get(key)` has no export of its own in the WIT: it is answered by `recall-memory(key, STORAGE_GET_RECALL_LIMIT)`
 * and the entry whose key equals `key` exactly, else null. A backend whose recall does not match on keys therefore
 * answers null for entries it holds; memory_get on such a backend is best effort.
 *
 * The WIT has no private flag: a private entry is stored under the category PRIVATE_CATEGORY ("private", replacing
 * the category given), and entries of that category come back marked private and are left out of recalls that do
 * not ask for private entries.
 */
export const STORAGE_GET_RECALL_LIMIT = 50;

export const GuestMemoryEntrySchema = z.object({
  id: z.string(),
  key: z.string(),
  content: z.string(),
  category: z.string(),
  timestamp: z.string(),
  score: z.number().nullable().optional(),
});

function output(where: string, what: string, issue: z.core.$ZodIssue | undefined): PrxError {
  return new PrxError(
    "PLUGIN_OUTPUT",
    `${where}: ${what} returned an invalid value at ${issue?.path.join(".") || "(root)"}: ${issue?.message}`,
  );
}

function parseWith<T>(schema: z.ZodType<T>, where: string, what: string): (raw: unknown) => T {
  return (raw) => {
    const parsed = schema.safeParse(raw);
    if (!parsed.success) throw output(where, what, parsed.error.issues[0]);
    return parsed.data;
  };
}

export async function createStorageAdapter(context: AdapterContext): Promise<StorageAdapter> {
  const where = describeCapability(context);
  const exportName = parseExportName(await guestCall(context, "name", [], "name", (raw) => raw), where);
  const entries = z.array(GuestMemoryEntrySchema);
  const recall = async (
    query: string,
    limit: number,
    sessionId?: string | null,
    options: RecallOptions = {},
  ): Promise<MemoryEntry[]> => {
    validateLimit(limit);
    if (options.relevantOnly && !hasContentTerms(query)) return [];
    const found = await guestCall(
      context,
      "recall-memory",
      [query, limit, sessionId ?? undefined],
      "recall",
      parseWith(entries, where, "recall-memory"),
    );
    return found
      .map((e) => ({ ...e, session_id: null, score: e.score ?? null, private: e.category === PRIVATE_CATEGORY }))
      .filter((e) => options.includePrivate === true || !e.private)
      .slice(0, limit);
  };
  const backend: MemoryBackend = {
    name: `${WASM_PROVIDER_PREFIX}${exportName}`,
    async store(key, content, category, sessionId, options) {
      validateStore(key, content, category, sessionId);
      const stored = options?.private ? PRIVATE_CATEGORY : category;
      await guestCall(
        context,
        "store-memory",
        [key, content, stored, sessionId ?? undefined],
        "store",
        () => undefined,
      );
    },
    recall,
    async get(key) {
      validateKey(key);
      if (key.length === 0) return null;
      const found = await recall(key, STORAGE_GET_RECALL_LIMIT, null, { includePrivate: true });
      return found.find((e) => e.key === key) ?? null;
    },
    async forget(key) {
      validateKey(key);
      return guestCall(context, "forget-memory", [key], "forget", parseWith(z.boolean(), where, "forget-memory"));
    },
    async count() {
      return guestCall(
        context,
        "count-memories",
        [],
        "count",
        parseWith(z.number().int().nonnegative(), where, "count-memories"),
      );
    },
    async health() {
      try {
        return await guestCall(context, "health-check", [], "health", parseWith(z.boolean(), where, "health-check"));
      } catch {
        // guestCall counted the failure in the capability's status; an unhealthy backend answers false.
        return false;
      }
    },
  };
  return { type: "storage", plugin: context.plugin.name, capability: context.capability, exportName, backend };
}

/**
 * The storage backends of a generation's adapters (in chain order), by `name()` and capability name; the first in
 * chain order wins a clash. Built once, when the generation is sealed.
 */
export function storagesByName(adapters: readonly StorageAdapter[]): Map<string, StorageAdapter> {
  const map = new Map<string, StorageAdapter>();
  for (const adapter of adapters) {
    for (const name of new Set([adapter.exportName, adapter.capability.name])) {
      if (!map.has(name)) map.set(name, adapter);
    }
  }
  return map;
}
