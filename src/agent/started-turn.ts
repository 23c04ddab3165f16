import type { StoredMessage } from "../storage/types.ts";
import type { TurnInput } from "./types.ts";

/** What a session holds of a turn whose process died after writing its user message (an inbox row marked started). */
export interface StartedTurn {
  /**
   * Its answer, when the turn stored one: the first assistant message without tool calls after its user message and
   * before the next user message (another turn's); null when the turn was cut off before it.
   */
  answer: string | null;
  /**
   * Where the turn runs again from (TurnInput.rerunnable.at): set when its user message is not the session's last one
   * (another turn wrote to the session since) or is older than the messages read, so the turn answers its own
   * message with the history up to it; absent when the session's history ends with the turn, as usual.
   */
  at?: number;
}

/**
 * The started turn in `tail` (a session's last messages, oldest first): its user message is the one of seq
 * `startedSeq`; for a row started by a version of prx that did not record it (null), the last message `asked` takes.
 */
export function startedTurn(tail: readonly StoredMessage[], startedSeq: number | null, asked: (message: StoredMessage) => boolean): StartedTurn {
  const at = startedSeq === null ? tail.findLastIndex(asked) : tail.findIndex((m) => m.seq === startedSeq);
  // not among the messages read (more came after it): the turn runs on from its own message
  if (at < 0) return startedSeq === null ? { answer: null } : { answer: null, at: startedSeq };
  let answer: string | null = null;
  for (let i = at + 1; i < tail.length; i++) {
    const message = tail[i]!;
    if (message.role === "user") return startedSeq === null ? { answer } : { answer, at: startedSeq };
    if (answer === null && message.role === "assistant" && !message.toolCalls?.length) answer = message.content;
  }
  return { answer };
}

/** How the turn of a started message runs again: from the session, up to its own message when `at` says where. */
export function resumeOf(started: StartedTurn): NonNullable<TurnInput["rerunnable"]> {
  return started.at === undefined ? { resumed: true } : { resumed: true, at: started.at };
}
