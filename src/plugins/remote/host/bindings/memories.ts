import { PrxError } from "../../../../core/errors.ts";
import { MEMORY_MAX_RECALL_LIMIT } from "../../../../memory/limits.ts";
import type { MemoryBackend } from "../../../../memory/types.ts";
import type { RemotePluginStore } from "../../../../storage/types.ts";
import type { AgentIdentity } from "../../agent.ts";
import { REMOTE_MEMORIES_MAX_RESULTS } from "../../limits.ts";
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
   * Full-text search (the memory backend, FTS5 for sqlite) among the workspace's best MEMORY_MAX_RECALL_LIMIT matches,
   * keeping this plugin's memories of the table (and room / entity when given), best first, each with `similarity`.
   * Vector search is not available: `embedding` alone is refused.
   */
  async searchMemories(plugin: string, p: SearchMemoriesParams): Promise<Memory[]> {
    if (typeof p.query !== "string" || p.query.trim() === "") {
      throw new PrxError(
        "PLUGIN_UNSUPPORTED",
        "runtime.searchMemories needs params.query: prx searches memories by text, not by embedding vectors",
        { hint: "pass the text you would embed as params.query" },
      );
    }
    const backend = this.memory();
    if (!backend) {
      throw new PrxError("PLUGIN_UNSUPPORTED", 'runtime.searchMemories: this workspace has no memory backend ([memory] backend = "none")', {
        hint: 'set [memory] backend = "sqlite" in config.toml',
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
}
