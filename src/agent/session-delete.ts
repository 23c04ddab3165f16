import { PrxError } from "../core/errors.ts";
import type { MemoryBackend } from "../memory/types.ts";
import type { SessionLinkStore, SessionStore } from "../storage/types.ts";
import { validateSessionId } from "./sessions.ts";

export interface SessionDeletion {
  session_id: string;
  /** Messages removed with the session. */
  messages: number;
  /** Images and audio its messages referred to (their bytes removed unless another session refers to them). */
  media: number;
  /** Memories stored with scope "session" in it, removed too (none on a `wasm:` backend, which cannot list them). */
  memories: number;
}

/**
 * Erase a session: the session, every message of it, the memories stored only for it, and the link that made it
 * (a delegate helper's). Throws SESSION_NOT_FOUND when there is no such session.
 */
export async function deleteSessionData(sessions: SessionStore, memory: MemoryBackend, id: string, links: SessionLinkStore): Promise<SessionDeletion> {
  validateSessionId(id);
  const removed = await sessions.delete(id);
  if (!removed) {
    throw new PrxError("SESSION_NOT_FOUND", `no session "${id}"`, {
      hint: "list sessions with `prx sessions list` or GET /api/sessions",
    });
  }
  await links.unlink(id);
  return { session_id: id, messages: removed.messages, media: removed.media, memories: (await memory.catalog?.forgetSession(id)) ?? 0 };
}
