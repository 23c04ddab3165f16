import { errorMessage } from "../core/errors.ts";
import type { MemoryEntry } from "../memory/types.ts";
import type { LifecycleEmit, TurnDeps } from "./types.ts";

/**
 * auto_recall: the memories relevant to the user's message, never private ones. A message with nothing to match
 * (only stop words, punctuation or emoji) recalls nothing (`relevantOnly`); an empty store costs no query. A failing backend is reported as an
 * `error` lifecycle event and the turn goes on without memories.
 */
export async function autoRecall(
  deps: Pick<TurnDeps, "config" | "memory">,
  text: string,
  sessionId: string,
  emit: LifecycleEmit,
): Promise<MemoryEntry[]> {
  try {
    const options = { includePrivate: false, relevantOnly: true };
    const found = await deps.memory().recall(text, deps.config.memory.recall_limit, sessionId, options);
    return found.filter((entry) => !entry.private);
  } catch (error) {
    emit("error", { stage: "memory_recall", message: errorMessage(error) });
    return [];
  }
}
