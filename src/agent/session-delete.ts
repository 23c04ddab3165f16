import { PrxError } from "../core/errors.ts";
import type { MemoryBackend } from "../memory/types.ts";
import type { SqliteSessionStore } from "./sessions.ts";
import { validateSessionId } from "./sessions.ts";

export interface SessionDeletion {
  session_id: string;
  /** Messages removed with the session. */
  messages: number;
  /** Memories stored with scope "session" in it, removed too (none on a `wasm:` backend, which cannot list them). */
  memories: number;
}

/**
 * Erase a session: the session, every message of it, and the memories stored only for it. Throws
 * SESSION_NOT_FOUND when there is no such session.
 */
export function deleteSessionData(sessions: SqliteSessionStore, memory: MemoryBackend, id: string): SessionDeletion {
  validateSessionId(id);
  const removed = sessions.delete(id);
  if (!removed) {
    throw new PrxError("SESSION_NOT_FOUND", `no session "${id}"`, {
      hint: "list sessions with `prx sessions list` or GET /api/sessions",
    });
  }
  return { session_id: id, messages: removed.messages, memories: memory.catalog?.forgetSession(id) ?? 0 };
}
