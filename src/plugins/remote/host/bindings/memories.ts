import { PrxError } from "../../../../core/errors.ts";
import { MEMORY_MAX_RECALL_LIMIT } from "../../../../memory/limits.ts";
import type { MemoryBackend } from "../../../../memory/types.ts";
import type { RemotePluginStore } from "../../../../storage/types.ts";
import type { AgentIdentity } from "../../agent.ts";
import { REMOTE_MEMORIES_MAX_RESULTS, REMOTE_MEMORIES_VECTOR_SCAN_MAX } from "../../limits.ts";
import { messageMemories } from "./rooms.ts";
import type { SessionSource } from "../../types.ts";
import type { GetMemoriesParams, SearchMemoriesParams } from "../../worker-runtime/runtime-types.ts";
import type { Memory } from "../../worker-runtime/types.ts";

/** The elizaOS table that holds a room's conversation; in prx it is the session's history. */
export const MESSAGES_TABLE = "messages";

export function memoryKey(plugin: string, id: string): string {
  return `remote/${plugin}/${id}`;
}

/** `count` as asked, capped to REMOTE_MEMORIES_MAX_RESULTS (elizaOS has no cap; a plugin never gets more than this). */
export function cappedCount(count: number | undefined): number {
  return Math.min(count ?? REMOTE_MEMORIES_MAX_RESULTS, REMOTE_MEMORIES_MAX_RESULTS);
}

/**
 * runtime.getMemories and runtime.searchMemories over the plugin's memories (table `remote_plugin_memories`, text in
 * the memory backend) and, for the table "messages", the session history of the room.
 */
export class RemoteMemoryQuery {
  constructor(
    private readonly store: RemotePluginStore,
    private readonly memory: () => MemoryBackend | null,
    private readonly sessions: SessionSource | null,
  ) {}

  /** Newest first: this plugin's memories of the table, plus (table "messages" with a roomId) the room's history. */
  async getMemories(plugin: string, p: GetMemoriesParams, agent: AgentIdentity): Promise<Memory[]> {
    const count = cappedCount(p.count);
    const offset = Math.max(0, p.offset ?? 0);
    const filter = { tableName: p.tableName, roomId: p.roomId, entityId: p.entityId, start: p.start, end: p.end, unique: p.unique };
    const own = this.store.memories(plugin, filter, count + offset).map((json) => JSON.parse(json) as Memory);
    let all = own;
    if (p.tableName === MESSAGES_TABLE && p.roomId !== undefined && this.sessions) {
      const history = (await messageMemories(p.roomId, this.sessions, agent, count + offset)).filter(
        (m) =>
          (p.entityId === undefined || m.entityId === p.entityId) &&
          (p.start === undefined || m.createdAt! >= p.start) &&
          (p.end === undefined || m.createdAt! <= p.end),
      );
      all = [...own, ...history].sort((a, b) => (b.createdAt ?? 0) - (a.createdAt ?? 0));
    }
    return all.slice(offset, offset + count);
  }

  /**
   * With `embedding`: the plugin's memories of the table (and room / entity when given) that carry an embedding of
   * the same length, by cosine similarity, best first, at least `match_threshold` (as elizaOS's adapters answer),
   * among its REMOTE_MEMORIES_VECTOR_SCAN_MAX newest. With `query` alone: full-text search (the memory backend, FTS5
   * for sqlite) among the workspace's best MEMORY_MAX_RECALL_LIMIT matches. Each result carries `similarity`.
   */
  async searchMemories(plugin: string, p: SearchMemoriesParams): Promise<Memory[]> {
    if (Array.isArray(p.embedding) && p.embedding.length > 0) return this.nearest(plugin, p, p.embedding);
    if (typeof p.query !== "string" || p.query.trim() === "") {
      throw new PrxError("BAD_REQUEST", "runtime.searchMemories needs params.embedding (a vector) or params.query (text)", {
        hint: "embed the text with useModel(TEXT_EMBEDDING) and pass it as params.embedding, or pass the text as params.query",
      });
    }
    const backend = this.memory();
    if (!backend) {
      throw new PrxError("PLUGIN_UNSUPPORTED", 'runtime.searchMemories: this workspace has no memory backend ([memory] backend = "none")', {
        hint: 'set [memory] backend = "sqlite" in config.toml, or search by params.embedding',
      });
    }
    const prefix = memoryKey(plugin, "");
    const entries = await backend.recall(p.query, MEMORY_MAX_RECALL_LIMIT, p.roomId ?? null);
    const out: Memory[] = [];
    for (const entry of entries) {
      if (out.length >= cappedCount(p.count)) break;
      if (!entry.key.startsWith(prefix) || entry.category !== p.tableName.slice(0, 64)) continue;
      const json = this.store.memory(plugin, entry.key.slice(prefix.length));
      if (json === undefined) continue;
      const memory = JSON.parse(json) as Memory;
      if (p.roomId !== undefined && memory.roomId !== p.roomId) continue;
      if (p.entityId !== undefined && memory.entityId !== p.entityId) continue;
      out.push({ ...memory, similarity: entry.score ?? null });
    }
    return out;
  }

  private nearest(plugin: string, p: SearchMemoriesParams, query: number[]): Memory[] {
    const threshold = p.match_threshold ?? -1;
    const filter = { tableName: p.tableName, roomId: p.roomId, entityId: p.entityId };
    const scored: Memory[] = [];
    for (const json of this.store.memories(plugin, filter, REMOTE_MEMORIES_VECTOR_SCAN_MAX)) {
      const memory = JSON.parse(json) as Memory;
      const embedding = memory.embedding;
      if (!Array.isArray(embedding) || embedding.length !== query.length) continue;
      const similarity = cosineSimilarity(query, embedding);
      if (similarity >= threshold) scored.push({ ...memory, similarity });
    }
    return scored.sort((a, b) => (b.similarity as number) - (a.similarity as number)).slice(0, cappedCount(p.count));
  }
}

/** Cosine similarity of two vectors of the same length; 0 when either is all zeros. */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
