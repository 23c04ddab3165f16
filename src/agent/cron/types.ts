import type { CronTimers } from "../../plugins/cron/index.ts";
import type { Logger } from "../../core/logger.ts";
import type { ChannelStateStore, CronJobRow, CronJobStore, CronStateStore, SessionStore } from "../../storage/types.ts";
import type { TurnInput, TurnResult } from "../types.ts";

export interface CronJobRunnerOptions {
  jobs: CronJobStore;
  state: CronStateStore;
  sessions: Pick<SessionStore, "append" | "get" | "messages">;
  /**
   * Where each scheduled run of an agentTurn job is kept as an inbound message (the workspace's channel inbox), so a
   * run another process takes over delivers the answer already stored, or goes on from the stored prompt.
   */
  inbox: ChannelStateStore;
  /** Runs an agentTurn job's message as a turn of its session (the host's runTurn). */
  runTurn(input: TurnInput): Promise<TurnResult>;
  /** The jobs this process delivers: a channel process those of its channel, the gateway those of no running channel. */
  accepts(row: CronJobRow): boolean;
  /** Sends text to the job's chat on its channel; absent where the session is the only destination. */
  deliver?(row: CronJobRow, text: string): Promise<void>;
  /** Default BACKGROUND_TIMERS (tests move their own by hand). */
  clock?: CronTimers;
  logger?: Logger;
  /** Who this process is in run leases (default: host, pid and a random part). */
  owner?: string;
  pollMs?: number;
  leaseMs?: number;
}
