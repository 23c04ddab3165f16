import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import type { ChannelStateStore, InboxRef, InboxRow, StoredMessage } from "../../storage/types.ts";
import { startedTurn, type StartedTurn } from "../started-turn.ts";

/**
 * The inbox the scheduled runs of jobs are kept in, beside the channels' (no channel is named so: a channel's name
 * starts with a letter or digit), so a run has the shape of a channel's message: an agentTurn's prompt is the inbound
 * message, a systemEvent's text the answer it writes to the session.
 */
export const CRON_RUN_INBOX = "@cron";

/**
 * Messages of the session read back when a run is taken over, to find its answer (a turn of 100 rounds of 4 calls, or
 * the chat's own messages since, put the prompt out of them: the turn then goes on from its prompt).
 */
export const CRON_RUN_TAIL_MESSAGES = 500;

/** Answered runs are forgotten this long after they were stored (a run is taken over within its lease). */
export const CRON_RUN_KEPT_MS = 24 * 60 * 60 * 1000;

/** Where a run stands in its inbox, read when it starts: at its first start or when another process takes it over. */
export type CronRunStage =
  /** Nothing of it is stored yet: the turn runs, writing the prompt with the run's mark. */
  | { kind: "fresh" }
  /**
   * The session holds the prompt (and maybe the answer), the message of seq `startedSeq` (null: a run started by a
   * version that did not record it): the answer is delivered, or the turn goes on from the prompt. A systemEvent's
   * text is in the session: it is delivered, not written again.
   */
  | { kind: "started"; startedSeq: number | null }
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

  /**
   * Store the run once (its payload as the message: an agentTurn's `{prompt}`, a systemEvent's `{text}`); a run stored
   * before, by a process that died, says how far it got.
   */
  async begin(payload: { prompt: string } | { text: string }): Promise<CronRunStage> {
    const { channel, messageId } = this.ref;
    if (await this.inbox.admit(channel, messageId, this.sessionId, JSON.stringify(payload), "received")) return { kind: "fresh" };
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
  return row.state === "started" ? { kind: "started", startedSeq: row.startedSeq } : { kind: "fresh" };
}

/**
 * What the session holds of a run whose turn started before its process died: its answer (the first assistant message
 * without tool calls after its prompt, before the next user message), or where its turn goes on from. A run started by
 * a version that did not record its prompt's seq takes the newest user message that is its prompt.
 */
export function startedRun(tail: readonly StoredMessage[], startedSeq: number | null, prompt: string): StartedTurn {
  return startedTurn(tail, startedSeq, (m) => m.role === "user" && m.content === prompt);
}
