import { PrxError } from "../core/errors.ts";
import { MEMORY_MAX_RECALL_LIMIT } from "../memory/limits.ts";
import type { MemoryBackend, MemoryEntry, MemoryKeyScope, RecallOptions, StoreOptions } from "../memory/types.ts";

/**
 * How many entries a recall asks a backend that cannot scope by key (a `wasm:` one) for, per one it returns: entries
 * of other scopes are left out after ranking, so asking for more keeps the answer full unless they dominate it.
 */
export const SCOPED_RECALL_FACTOR = 4;

/** The key under which an agent with its own memory keeps `key`: its id travels with every entry it stores. */
export function ownKey(agent: string, key: string): string {
  return `@${agent}/${key}`;
}

/** The agent id an entry's key carries (an entry stored by an agent with its own memory), else null. */
export function keyAgent(key: string): string | null {
  const match = /^@([a-z0-9][a-z0-9_-]{0,31})\//.exec(key);
  return match ? match[1]! : null;
}

/**
 * The memory one agent sees. `own`: it stores under its id and recalls, gets and forgets only its own entries, so
 * nothing it keeps reaches another agent's prompt or tools. Shared agents see every entry but those of the
 * workspace's agents with their own memory (`owners`), and may not store under such an agent's id. The built-in
 * backends filter by key in their queries; for others, what they return is filtered here.
 */
export class ScopedMemory implements MemoryBackend {
  readonly scopedRecall = true;
  private readonly keys: MemoryKeyScope;

  constructor(
    private readonly inner: () => MemoryBackend,
    private readonly agent: string,
    private readonly own: boolean,
    private readonly owners: ReadonlySet<string>,
  ) {
    this.keys = own ? { prefix: ownKey(agent, "") } : { hiddenPrefixes: [...owners].map((owner) => ownKey(owner, "")) };
  }

  get name(): string {
    return this.inner().name;
  }

  async store(key: string, content: string, category: string, sessionId?: string | null, options?: StoreOptions): Promise<void> {
    return this.inner().store(this.keyFor(key), content, category, sessionId, options);
  }

  async recall(query: string, limit: number, sessionId?: string | null, options?: RecallOptions): Promise<MemoryEntry[]> {
    const inner = this.inner();
    const asked = inner.scopedRecall ? limit : Math.min(MEMORY_MAX_RECALL_LIMIT, Math.max(limit, limit * SCOPED_RECALL_FACTOR));
    const found = await inner.recall(query, asked, sessionId, { ...options, keys: this.keys });
    const mine: MemoryEntry[] = [];
    for (const entry of found) {
      const visible = this.visible(entry);
      if (visible) mine.push(visible);
      if (mine.length >= limit) break;
    }
    return mine;
  }

  async get(key: string): Promise<MemoryEntry | null> {
    const entry = await this.inner().get(this.keyFor(key));
    return entry ? this.visible(entry) : null;
  }

  async forget(key: string): Promise<boolean> {
    return this.inner().forget(this.keyFor(key));
  }

  count(): Promise<number> {
    return this.inner().count();
  }

  health(): Promise<boolean> {
    return this.inner().health();
  }

  /** The entry as this agent sees it (its own key without the id), or null when it belongs to another scope. */
  private visible(entry: MemoryEntry): MemoryEntry | null {
    const owner = keyAgent(entry.key);
    if (this.own) return owner === this.agent ? { ...entry, key: entry.key.slice(this.agent.length + 2) } : null;
    return owner !== null && this.owners.has(owner) ? null : entry;
  }

  private keyFor(key: string): string {
    if (this.own) return ownKey(this.agent, key);
    const owner = keyAgent(key);
    if (owner !== null && this.owners.has(owner)) {
      throw new PrxError("MEMORY", `memory key ${JSON.stringify(key)} belongs to agent ${owner}'s own memory`, {
        hint: `agent ${this.agent} cannot read or write it; choose a key that does not begin with "@${owner}/"`,
      });
    }
    return key;
  }
}
