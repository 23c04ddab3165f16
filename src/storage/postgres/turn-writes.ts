import type { ReservedSQL } from "bun";
import { mediaColumn, mediaHashes, titleFrom, validateSessionId } from "../session-history.ts";
import type { AppendedMessage } from "../types.ts";
import { pgFailure } from "./connect.ts";

/** Times a write that lost a race on the sequence number (a writer bypassing the session lease) runs again. */
export const APPEND_RACE_RETRIES = 20;

/** The statement of a leased turn's writes (migration-turn-end.ts); with `p_release` it ends the lease too. */
const TURN_END = "CALL prx_turn_end($1, $2, $3, $4, $5, $6, $7, $8, $9)";

export function isUniqueViolation(error: unknown): boolean {
  const e = error as { errno?: string; code?: string };
  return e?.errno === "23505" || /duplicate key value/.test(String((error as Error)?.message));
}

/** A message as session_messages stores it (each column text or null), as prx_turn_end reads it. */
interface MessageColumns {
  role: string;
  content: string;
  tool_calls: string | null;
  tool_call_id: string | null;
  name: string | null;
  media: string | null;
  usage: string | null;
  created_at: string;
}

/** The appends of one leased session not yet written, merged in order. */
interface Pending {
  /** The first append's time: the session's creation time when this write creates it. */
  created: string;
  /** The last append's time: the session's updated_at. */
  at: string;
  /** The first non-empty title of the appends (a session keeps the first title it is given). */
  title: string;
  /** The channel and agent of the first append that named one (the session is created with them), else undefined. */
  channel?: string;
  agent: string;
  rows: MessageColumns[];
  hashes: Set<string>;
}

/**
 * Appends to a session whose lease this process holds, kept until the lease ends and then written in the statement
 * that ends it (`CALL prx_turn_end`, migration-turn-end.ts): a turn writes its messages and releases its lock in one
 * round trip, instead of one per append plus the unlock. Nothing else can write the session in between (the lease
 * orders turns across replicas), so the messages get the numbers they would have got one append at a time. Any read
 * of the session through the store writes what is kept first (`write`), so this process always reads its own writes;
 * other replicas see a turn's messages when its lease ends, when the next turn of the session can start.
 */
export class TurnWrites {
  private readonly pending = new Map<string, Pending>();
  /** Writes under way, by session. */
  private readonly writing = new Map<string, Promise<boolean>>();
  /** A write before the lease's end that failed, reported again by the lease's end. */
  private readonly failed = new Map<string, unknown>();

  /** Keep `messages` for the session's lease end (validated as an append would be). */
  add(id: string, messages: AppendedMessage[], channel: string | undefined, agent: string, now: string): void {
    if (channel !== undefined) validateSessionId(id);
    let kept = this.pending.get(id);
    if (!kept) {
      kept = { created: now, at: now, title: "", agent, rows: [], hashes: new Set() };
      this.pending.set(id, kept);
    }
    kept.at = now;
    if (kept.title === "") kept.title = titleFrom(messages);
    if (kept.channel === undefined && channel !== undefined) {
      kept.channel = channel;
      kept.agent = agent;
      kept.created = now;
    }
    for (const m of messages) {
      kept.rows.push({
        role: m.role,
        content: m.content,
        tool_calls: m.tool_calls?.length ? JSON.stringify(m.tool_calls) : null,
        tool_call_id: m.tool_call_id ?? null,
        name: m.name ?? null,
        media: mediaColumn(m),
        usage: m.usage ? JSON.stringify(m.usage) : null,
        created_at: now,
      });
    }
    for (const hash of mediaHashes(messages)) kept.hashes.add(hash);
  }

  /** Whether appends to `id` wait for a write (cheap: most reads find none). */
  has(id: string): boolean {
    return this.pending.size > 0 && this.pending.has(id);
  }

  /** Whether the lease's end of `id` has a write to make (appends kept, or an earlier write's failure to report). */
  owes(id: string): boolean {
    return this.has(id) || (this.failed.size > 0 && this.failed.has(id));
  }

  /** Ids of every session with appends kept or a write under way. */
  ids(): string[] {
    return [...new Set([...this.pending.keys(), ...this.writing.keys()])];
  }

  /**
   * Write what is kept for `id` on `conn` (the lease's connection) in one statement; with `release`, the lease's lock is
   * released in it after the commit. Resolves whether the lock was released (false: it was not held, or `release` was
   * not asked). A write of the lease's end also fails when a write earlier in the lease failed (`settled`), so the
   * turn learns that its messages were not all stored.
   */
  write(id: string, conn: ReservedSQL, release: boolean): Promise<boolean> {
    const kept = this.pending.get(id);
    this.pending.delete(id);
    const earlier = release ? this.failed.get(id) : undefined;
    if (release) this.failed.delete(id);
    const writing = this.run(id, kept, conn, release);
    this.writing.set(id, writing);
    const done = () => {
      if (this.writing.get(id) === writing) this.writing.delete(id);
    };
    writing.then(done, done);
    if (earlier === undefined) return writing;
    return writing.then(() => Promise.reject(earlier));
  }

  /**
   * Before a read of `id` while its lease is held here: its kept appends written (on the lease's connection), or the
   * write under way awaited; undefined when there is nothing to wait for. A failed write fails the read and, later,
   * the lease's end.
   */
  settled(id: string, conn: ReservedSQL | undefined): Promise<unknown> | undefined {
    if (conn && this.has(id)) {
      return this.write(id, conn, false).catch((error: unknown) => {
        this.failed.set(id, error);
        throw error;
      });
    }
    return this.writing.size > 0 ? this.writing.get(id) : undefined;
  }

  private async run(id: string, kept: Pending | undefined, conn: ReservedSQL, release: boolean): Promise<boolean> {
    if (!kept && !release) return false;
    const params = kept
      ? [
          id,
          kept.created,
          kept.at,
          kept.title,
          kept.channel ?? null,
          kept.agent,
          JSON.stringify(kept.rows),
          kept.hashes.size > 0 ? JSON.stringify([...kept.hashes]) : null,
          release,
        ]
      : [id, null, null, null, null, null, null, null, release];
    for (let attempt = 1; ; attempt++) {
      try {
        const rows = (await conn.unsafe(TURN_END, params)) as Array<{ released: boolean | null }>;
        return rows[0]?.released === true;
      } catch (cause) {
        if (attempt < APPEND_RACE_RETRIES && isUniqueViolation(cause)) continue;
        throw pgFailure("session append", cause);
      }
    }
  }
}
