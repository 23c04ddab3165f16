import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import type { ChannelStateStore, InboxRef, InboxRow, StoredMessage } from "../../storage/types.ts";

/**
 * The inbox the runs of agentTurn jobs are kept in, beside the channels' (no channel is named so: a channel's name
 * starts with a letter or digit), so a run has the shape of a channel's message: its prompt is the inbound message.
 */
export const CRON_RUN_INBOX = "@cron";

/**
 * Messages of the session read back when a run is taken over, to find its prompt and its answer (a turn of 100 rounds
 * of 4 calls, or the chat's own messages since, put the prompt out of them: the turn then goes on from the session).
 */
export const CRON_RUN_TAIL_MESSAGES = 500;

/** Answered runs are forgotten this long after they were stored (a run is taken over within its lease). */
export const CRON_RUN_KEPT_MS = 24 * 60 * 60 * 1000;

/** Where a run stands in its inbox, read when it starts: at its first start or when another process takes it over. */
export type CronRunStage =
  /** Nothing of it is stored yet: the turn runs, writing the prompt with the run's mark. */
  | { kind: "fresh" }
  /** The session holds the prompt (and maybe the answer): the answer is delivered, or the turn goes on from the session. */
  | { kind: "started" }
  /** The answer is stored: it is delivered, with no turn. */
  | { kind: "answered"; text: string }
  /** The run was delivered: nothing is left to do. */
  | { kind: "done"; text: string };

/** One slot's run of one job in the inbox. */
export class CronRunInbox {
  readonly ref: InboxRef;

  constructor(
    private readonly inbox: ChannelStateStore,
    jobId: string,
    slot: number,
    private readonly sessionId: string,
  ) {
    this.ref = { channel: CRON_RUN_INBOX, messageId: `${jobId}@${slot}` };
  }

  /** Store the run once (its prompt as the message); a run stored before, by a process that died, says how far it got. */
  async begin(prompt: string): Promise<CronRunStage> {
    const { channel, messageId } = this.ref;
    if (await this.inbox.admit(channel, messageId, this.sessionId, JSON.stringify({ prompt }), "received")) return { kind: "fresh" };
    return stageOf(await this.inbox.entry(channel, messageId));
  }

  answered(text: string): Promise<void> | void {
    return this.inbox.replied(this.ref.channel, this.ref.messageId, [text]);
  }

  delivered(): Promise<void> | void {
    return this.inbox.delivered(this.ref.channel, this.ref.messageId, 1);
  }

  /** The run failed (its turn or its delivery): it is not taken over, nothing more is done for it. */
  async failed(reason: string, logger: Logger): Promise<void> {
    try {
      await this.inbox.done(this.ref.channel, this.ref.messageId);
    } catch (error) {
      logger.error("failed cron run not marked done in its inbox", { run: this.ref.messageId, reason, error: errorMessage(error) });
    }
  }
}

function stageOf(row: InboxRow | null): CronRunStage {
  // a row gone between the two reads was pruned long after it was answered: nothing is left to do
  if (row === null) return { kind: "done", text: "" };
  const text = row.reply?.join("\n") ?? null;
  if (row.state === "done" || row.state === "ignored") return { kind: "done", text: text ?? "" };
  if (text !== null) return { kind: "answered", text };
  return row.state === "started" ? { kind: "started" } : { kind: "fresh" };
}

/**
 * The answer a run's turn stored before its process died: the first assistant message without tool calls after the
 * newest user message that is the run's prompt; null when the turn was cut off before it (or the prompt is not among
 * the messages read).
 */
export function storedAnswer(tail: readonly StoredMessage[], prompt: string): string | null {
  const asked = tail.findLastIndex((m) => m.role === "user" && m.content === prompt);
  if (asked < 0) return null;
  for (let i = asked + 1; i < tail.length; i++) {
    const message = tail[i]!;
    if (message.role === "assistant" && !message.toolCalls?.length) return message.content;
  }
  return null;
}
