import { PrxError } from "../core/errors.ts";
import type { MemoryPresence, Storage } from "../storage/types.ts";
import { NoneMemory } from "./none.ts";
import type { EmbedTexts } from "./embeddings.ts";
import { SqliteMemory, type SqliteHybrid } from "./sqlite.ts";
import type { MemoryBackend } from "./types.ts";

export const BUILTIN_MEMORY_BACKENDS = ["sqlite", "postgres", "none"] as const;

/** Resolves a wasm storage export by name (the plugin runtime's stable proxy), or undefined when absent. */
export type ExternalMemoryResolver = ((name: string) => MemoryBackend | undefined) & {
  /** Optional: names the resolver can provide, listed in the error when a wanted one is missing. */
  names?: () => string[];
};

/**
 * Build the backend named by memory.backend: "sqlite", "postgres" (made by the caller on the pool of `[storage]
 * backend = "postgres"`, see openPgMemory: loaded only then), "none" or "wasm:<name>".
 */
export function createMemoryBackend(
  name: string,
  storage: Pick<Storage, "memory">,
  external?: ExternalMemoryResolver,
  postgres?: MemoryBackend | null,
  /** Vectors and embeddings for hybrid recall on "sqlite" (see agent/memory-embed.ts sqliteRecallMode). */
  sqliteHybrid?: SqliteHybrid | null,
): MemoryBackend {
  if (name === "sqlite") return new SqliteMemory(() => storage.memory, sqliteHybrid ?? null);
  if (name === "postgres") {
    if (postgres) return postgres;
    throw new PrxError("CONFIG_INVALID", 'memory.backend = "postgres" needs [storage] backend = "postgres"', {
      hint: 'set [storage] backend = "postgres" (and its url_env), or memory.backend = "sqlite"',
    });
  }
  if (name === "none") return new NoneMemory();
  if (name.startsWith("wasm:")) {
    const wanted = name.slice("wasm:".length);
    const backend = wanted ? external?.(wanted) : undefined;
    if (backend) return backend;
    const available = [...BUILTIN_MEMORY_BACKENDS, ...(external?.names?.() ?? []).map((n) => `wasm:${n}`)];
    throw new PrxError("MEMORY", `memory backend "${name}" is not provided by any loaded plugin`, {
      hint:
        `available: ${available.join(", ")}; ` +
        `a wasm backend needs an enabled plugin exporting storage "${wanted}" (prx plugins list)`,
      details: { available },
    });
  }
  throw new PrxError("MEMORY", `unknown memory backend "${name}"`, {
    hint: `set memory.backend to one of ${BUILTIN_MEMORY_BACKENDS.join(", ")} or "wasm:<name>"`,
  });
}

/** The PostgreSQL storage's pool memory's backend shares, with what the turn's start read of memory. */
export interface PgMemoryPool {
  sql: import("bun").SQL;
  memoryPresence: MemoryPresence | null;
}

/**
 * memory.backend = "postgres" on the storage's pool; its modules load only here. `embed` is the default provider's
 * embeddings when it has them: with pgvector on the server, recall is then hybrid.
 */
export async function openPgMemory(
  storage: PgMemoryPool,
  embed?: EmbedTexts,
  minSimilarity?: number,
): Promise<MemoryBackend> {
  return new (await import("./postgres.ts")).PgMemory(storage.sql, embed, minSimilarity, storage.memoryPresence);
}
