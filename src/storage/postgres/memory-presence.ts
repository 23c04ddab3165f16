import type { MemoryPresence } from "../types.ts";

/**
 * Whether memory held any entry when a session's lease started, as prx_turn_start read it (migration-turn-start.ts),
 * for the recall that starts the turn: on a store found empty it recalls nothing without a round trip of its own.
 * A memory another process stores commits before any later lease start reads, so the next turn on every replica
 * sees it. What a lease start read holds once, for that lease, until the session is first written; a memory write
 * of this process forgets it all (and a lease start sent before that write does not record "empty").
 */
export class PgMemoryPresence implements MemoryPresence {
  private watched = false;
  private writes = 0;
  private readonly empty = new Set<string>();

  /** Whether lease starts ask: only once a memory backend on this pool reads the answers (`watch`). */
  get asked(): boolean {
    return this.watched;
  }

  watch(): void {
    this.watched = true;
  }

  /** Memory writes of this process so far: taken when a lease start is sent, given back to `seen`. */
  get generation(): number {
    return this.writes;
  }

  /** What the lease start of `sessionId`, sent at `generation`, read (null: not asked). */
  seen(sessionId: string, present: boolean | null, generation: number): void {
    if (present === false && generation === this.writes) this.empty.add(sessionId);
    else this.drop(sessionId);
  }

  /** True when memory was empty at the lease start of `sessionId` and nothing since made that stale (answered once). */
  takeEmpty(sessionId: string): boolean {
    return this.empty.size > 0 && this.empty.delete(sessionId);
  }

  /** The session was written, or its lease ended. */
  drop(sessionId: string): void {
    if (this.empty.size > 0) this.empty.delete(sessionId);
  }

  /** This process wrote memory. */
  written(): void {
    this.writes++;
    this.empty.clear();
  }
}
