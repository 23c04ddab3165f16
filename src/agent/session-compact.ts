import { PrxError } from "../core/errors.ts";
import type { ConversationSummary } from "../storage/types.ts";
import { compactSession } from "./compaction.ts";
import { planTurn } from "./plan.ts";
import { validateSessionId } from "./sessions.ts";
import type { TurnDeps } from "./types.ts";

/** What a compaction asked for by hand did. */
export interface SessionCompaction {
  session_id: string;
  /** False when there was nothing new to summarise. */
  compacted: boolean;
  /** Messages newly folded into the summary. */
  folded: number;
  /** The session's summary now (null: never compacted). */
  summary: ConversationSummary | null;
}

/**
 * Summarise every message of a session after its newest summary (`/compact`, POST /api/sessions/:id/compact,
 * `prx sessions compact`), with the model a turn would use. SESSION_NOT_FOUND when there is no such session; a failed
 * compaction throws and leaves the session as it was.
 */
export async function compactSessionNow(
  deps: Pick<TurnDeps, "config" | "sessions" | "tools" | "workspace" | "providers" | "resolveModelChoice"> & Partial<Pick<TurnDeps, "memory">>,
  id: string,
  choice: { provider?: string; model?: string } = {},
): Promise<SessionCompaction> {
  validateSessionId(id);
  if (!(await deps.sessions.get(id))) {
    throw new PrxError("SESSION_NOT_FOUND", `no session "${id}"`, { hint: "list sessions with `prx sessions list` or GET /api/sessions" });
  }
  const plan = planTurn(deps, choice);
  const request = { sessionId: id, provider: plan.provider, providerName: plan.choice.provider, model: plan.choice.model, all: true };
  const done = await compactSession(deps, request);
  if (done) return { session_id: id, compacted: true, folded: done.folded, summary: done.summary };
  return { session_id: id, compacted: false, folded: 0, summary: await deps.sessions.summary(id) };
}
