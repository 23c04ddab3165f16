import type { LoadedConfig } from "../config/loader.ts";
import { lazyChannelDeliverer } from "./deliver-lazy.ts";
import { openAgentHost, type AgentHost, type OpenAgentHostOptions } from "../agent/host.ts";
import type { ChannelConfig } from "../config/schema.ts";
import { errorMessage, PrxError } from "../core/errors.ts";
import { createLogger, type Logger } from "../core/logger.ts";
import type { PairingStore } from "../storage/types.ts";
import type { ChildMessage } from "./ipc.ts";
import type { LastError } from "./last-error.ts";
import { CronJobRunner } from "../agent/cron/index.ts";
import { CHANNEL_REPORT_INTERVAL_MS } from "./limits.ts";
import { throttled } from "./report-throttle.ts";
import { ChannelRunner } from "./runner.ts";
import { splitMessage } from "./split.ts";
import { ChannelStore } from "./store.ts";
import type { Channel } from "./types.ts";

/**
 * The side of a channel process that needs the workspace: the agent host with its own plugin runtime, the channel's
 * stores (cursor, inbox, liveness) and the runner that takes messages into turns. Loaded and opened once the platform
 * is connected (process.ts), so nothing of it costs the connection's start.
 */
export interface ChannelParticipant {
  host: AgentHost;
  store: ChannelStore;
  pairings: PairingStore;
  runner: ChannelRunner;
  /** The cron tool's jobs created from this channel: delivered to their chats by this process (one replica per slot). */
  cron: CronJobRunner;
  /** Write the liveness row and tell the supervisor the channel's health and counters. */
  report(): void;
}

export interface ParticipantOptions {
  name: string;
  workspace: string;
  /** The configuration the channel connected with (read once per start). */
  loaded?: LoadedConfig;
  env: Record<string, string | undefined>;
  config: ChannelConfig;
  channel: Channel;
  logger: Logger;
  send?: (message: ChildMessage) => void;
  /** The webhook channel's synchronous replies; other channels hand answers to nobody. */
  onAnswered?: (messageId: string, parts: string[]) => void;
  /** The channel's last error (its logger records every warning and error in it). */
  lastError: LastError;
  typingIntervalMs?: number;
  /** CHANNEL_REPORT_INTERVAL_MS unless given (tests). */
  reportIntervalMs?: number;
  /**
   * The host's extensions: `prx channel run` passes the gateway's (boot/channel-host.ts: plugins and the MCP
   * servers' tools); without it, plugins and hooks alone.
   */
  extend?: OpenAgentHostOptions["extend"];
  /** Whether a turn needs the extensions yet (OpenAgentHostOptions.extendWhen); without it they open with the host. */
  extendWhen?: OpenAgentHostOptions["extendWhen"];
  /** One line per pairing request, pairing let through, refusal and failed turn (the foreground prints them). */
  onEvent?: (line: string) => void;
  /** The runner's count of messages in flight, whenever it changes (RunnerOptions.onInFlight). */
  onInFlight?: (count: number) => void;
  /**
   * Aborted when the process stops: while the host opens, what was opened is closed and this rejects with ABORTED;
   * after, no more liveness rows are written.
   */
  signal: AbortSignal;
}

export async function openParticipant(options: ParticipantOptions): Promise<ChannelParticipant> {
  const { name, channel, logger } = options;
  const host = await openAgentHost({
    workspace: options.workspace,
    ...(options.loaded ? { loaded: options.loaded } : {}),
    env: options.env,
    extend: options.extend ?? (async (base) => (await import("../agent/plugin-extensions.ts")).createPluginExtensions()(base)),
    ...(options.extendWhen ? { deferExtend: true, extendWhen: options.extendWhen } : {}),
    deliver: lazyChannelDeliverer,
  });
  try {
    stopIfAborted(options);
    // in the [storage] backend: the workspace database, or PostgreSQL shared by channel processes on every host
    const store = new ChannelStore(host.storage.channels, name);
    const pairings = host.storage.pairings;
    const report = () => {
      const stats = runner.stats;
      const last = options.lastError.current;
      store
        .writeStatus({
          pid: process.pid,
          state: channel.health().ok ? "running" : "degraded",
          last_inbound: stats.lastInbound,
          last_outbound: stats.lastOutbound,
          last_error: last?.message ?? null,
          last_error_at: last?.at ?? null,
        })
        // through a logger that does not record it as the last error: that would report (and fail) again, endlessly
        .catch((error: unknown) => createLogger(`channel.${name}`).warn(`liveness row not written: ${errorMessage(error)}`));
      options.send?.({ type: "status", health: channel.health(), stats: { ...stats, rejected: channel.rejected ?? 0, lastError: last?.message ?? null, lastErrorAt: last?.at ?? null } });
    };
    // the counters change with every message: the row and the supervisor hear them at most once per
    // CHANNEL_REPORT_INTERVAL_MS (the first change after a quiet interval in the next turn of the event loop, later ones
    // together at the interval's end), and no more once the process stops: its last row says "stopped"
    const reportSoon = throttled(() => {
      if (!options.signal.aborted) report();
    }, options.reportIntervalMs ?? CHANNEL_REPORT_INTERVAL_MS);
    const runner: ChannelRunner = new ChannelRunner({
      channel,
      host,
      store,
      pairings,
      config: options.config,
      bindings: host.config.bindings,
      logger,
      onStats: reportSoon,
      onAnswered: options.onAnswered,
      workspace: options.workspace,
      typingIntervalMs: options.typingIntervalMs,
      approvals: host.approvals,
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
      ...(options.onInFlight ? { onInFlight: options.onInFlight } : {}),
    });
    await store.prune();
    stopIfAborted(options);
    // what a previous process left unanswered goes first, before the messages that waited for this host
    await runner.resume();
    const cron = new CronJobRunner({
      jobs: host.storage.cronJobs,
      state: host.storage.cron,
      sessions: host.sessions,
      inbox: host.storage.channels,
      runTurn: (input) => host.runTurn(input),
      accepts: (row) => row.channel === name && row.chat_id !== null,
      deliver: async (row, text) => {
        for (const part of splitMessage(text, channel.capabilities.maxMessageLength)) {
          await channel.send({ chatId: row.chat_id!, threadId: row.thread_id, replyTo: null, text: part });
        }
      },
      logger,
    });
    await cron.start();
    return { host, store, pairings, runner, cron, report };
  } catch (error) {
    await host.close();
    throw error;
  }
}

function stopIfAborted(options: ParticipantOptions): void {
  if (options.signal.aborted) throw new PrxError("ABORTED", `channel ${options.name} stopped while its host was opening`);
}
