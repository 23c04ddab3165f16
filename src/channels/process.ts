import { ConfigReloader } from "../agent/config-reload.ts";
import type { AgentHost } from "../agent/index.ts";
import { watchConfigFile } from "../config/watch.ts";
import { errorMessage, isPrxError, PrxError } from "../core/errors.ts";
import { createLogger, type Logger } from "../core/logger.ts";
import { connectChannel, readChannelTarget } from "./connect.ts";
import type { ChildMessage } from "./ipc.ts";
import { LastError, recordingLogger } from "./last-error.ts";
import { CHANNEL_STOP_GRACE_MS, type PlatformLimits } from "./limits.ts";
import type { ChannelParticipant } from "./participant.ts";
import { PendingHost } from "./pending-host.ts";
import type { ChannelRunner } from "./runner.ts";
import type { Channel, ChannelHealth } from "./types.ts";
import { WebhookReplies } from "./webhook/replies.ts";

export interface ChannelProcessOptions {
  name: string;
  workspace?: string;
  env?: Record<string, string | undefined>;
  /** Messages to the supervisor (process.send in a supervised child); undefined in the foreground. */
  send?: (message: ChildMessage) => void;
  /** Shorter time limits for tests; each defaults to its constant in limits.ts. */
  limits?: Partial<ChannelProcessLimits>;
  /** Aborted by a signal while the platform is being connected: the connection stops and connecting rejects (ABORTED). */
  signal?: AbortSignal;
  /** Called once the platform is connected, before the agent host starts to open (the foreground prints "running"). */
  onConnected?: (health: ChannelHealth) => void;
  /** The agent host's extensions (participant.ts); `prx channel run` passes boot/channel-host.ts's. */
  extend?: import("./participant.ts").ParticipantOptions["extend"];
  /** When a turn needs those extensions (participant.ts); `prx channel run` passes boot/channel-host.ts's. */
  extendWhen?: import("./participant.ts").ParticipantOptions["extendWhen"];
  /** One line per pairing request, pairing approval and refusal (the foreground prints them; errors are logged). */
  onEvent?: (line: string) => void;
  /** The runner's count of messages in flight, whenever it changes (`prx channel run`: its JIT policy, its idle collection). */
  onInFlight?: (count: number) => void;
  /** How the agent host side is opened; defaults to participant.ts (loaded only then). Tests pass a failing one. */
  openParticipant?: (options: import("./participant.ts").ParticipantOptions) => Promise<ChannelParticipant>;
}

export interface ChannelProcessLimits extends PlatformLimits {
  /** CHANNEL_STOP_GRACE_MS */
  stopGraceMs: number;
  /** TYPING_INTERVAL_MS */
  typingIntervalMs: number;
  /** WEBHOOK_SYNC_WAIT_MS */
  webhookSyncWaitMs: number;
  /** CHANNEL_REPORT_INTERVAL_MS */
  reportIntervalMs: number;
}

/** A channel process connected to its platform; its agent host opens in the background. */
export interface ChannelProcess {
  channel: Channel;
  /** Resolves once the agent host is open and messages are answered; rejects if it did not open (or the process stopped first). */
  opened(): Promise<RunningChannel>;
  /** A message from the supervisor (parsed here). */
  receive(raw: unknown): void;
  /** Stops in any phase: while the host opens, what it opened is closed once it is. */
  stop(): Promise<void>;
  /** Resolves once stopped; rejects with the error when the agent host failed to open (the connection is stopped then). */
  closed: Promise<void>;
}

/** A channel process whose agent host is open. */
export interface RunningChannel extends ChannelProcess {
  host: AgentHost;
  runner: ChannelRunner;
}

/**
 * One channel as a full participant, connected first: the platform adapter starts from the workspace's cached
 * configuration alone (connect.ts), and the agent host with its own plugin runtime, the channel's stores and the
 * runner open after it (participant.ts, loaded then). Messages that arrive meanwhile wait for them (pending-host.ts)
 * and are then answered in order, after what a previous process left unanswered.
 */
export async function connectChannelProcess(options: ChannelProcessOptions): Promise<ChannelProcess> {
  const { name, send } = options;
  const env = options.env ?? process.env;
  const pending = new PendingHost<ChannelParticipant>();
  // every warning or error is the channel's last error: told to the supervisor and written to the liveness row, once
  // per turn of the event loop however many came in it
  let reporting = false;
  let stopped = false;
  const lastError = new LastError(() => {
    if (reporting) return;
    reporting = true;
    setImmediate(() => {
      reporting = false;
      const record = lastError.current!;
      send?.({ type: "error", message: record.message, at: record.at });
      if (pending.isOpen && !stopped) void pending.when().then((participant) => participant.report());
    });
  });
  const logger = recordingLogger(createLogger(`channel.${name}`), lastError);
  const target = await readChannelTarget(name, options.workspace, env);
  const { config, kind } = target;
  // only a webhook channel answering in the response waits for replies; any other keeps none (each would be held
  // WEBHOOK_REPLY_KEEP_MS for a caller that never asks)
  const replies = kind === "webhook" && !config.callback_url ? new WebhookReplies({ waitMs: options.limits?.webhookSyncWaitMs }) : null;
  const stopGraceMs = options.limits?.stopGraceMs ?? CHANNEL_STOP_GRACE_MS;
  const channel = await connectChannel(
    kind,
    {
      name,
      config,
      env,
      logger,
      cursor: { get: async () => (await pending.when()).store.getCursor(), set: async (value) => (await pending.when()).store.setCursor(value) },
      waitForCapacity: () => pending.waitForCapacity(),
      ...(replies ? { awaitReply: (id: string) => replies.wait(id) } : {}),
      // pairing: an unknown inviter is joined so they can be given a code (nothing else runs for them)
      mayInvite: async (sender) =>
        config.dm_policy !== "allowlist" || config.allow.includes(sender) || (await (await pending.when()).pairings.isApproved(name, sender)),
      limits: options.limits,
      workspace: target.root,
    },
    pending.onMessage,
    options.signal,
  );
  send?.({ type: "ready", pid: process.pid });
  options.onConnected?.(channel.health());

  const opening = new AbortController();
  const open = (async () => {
    const openParticipant = options.openParticipant ?? (await import("./participant.ts")).openParticipant;
    return openParticipant({
      name,
      workspace: target.root,
      loaded: target.loaded,
      env,
      config,
      channel,
      logger,
      send,
      ...(replies ? { onAnswered: (id: string, parts: string[]) => replies.settle(id, parts) } : {}),
      lastError,
      typingIntervalMs: options.limits?.typingIntervalMs,
      reportIntervalMs: options.limits?.reportIntervalMs,
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
      ...(options.extend ? { extend: options.extend } : {}),
      ...(options.extendWhen ? { extendWhen: options.extendWhen } : {}),
      ...(options.onInFlight ? { onInFlight: options.onInFlight } : {}),
      signal: opening.signal,
    });
  })();

  let resolveClosed!: () => void;
  let rejectClosed!: (error: unknown) => void;
  const closed = new Promise<void>((resolve, reject) => {
    resolveClosed = resolve;
    rejectClosed = reject;
  });
  let stopping: Promise<void> | null = null;
  let unwatch: (() => void) | undefined;
  // the CLI awaits `closed`; an in-process caller learns of a failed open from opened() instead
  closed.catch(() => undefined);
  /**
   * Stop the adapter: it aborts at once, and its loops end once what they wait for settles (a loop waiting for the
   * host that will not open ends with the ABORTED error it was given: expected, not logged).
   */
  const stopChannel = () =>
    channel.stop().catch((error: unknown) => {
      if (!isPrxError(error, "ABORTED")) logger.error(`channel stop failed: ${errorMessage(error)}`);
    });
  let receiving: Promise<(raw: unknown) => void> | null = null;
  /**
   * Stop taking messages in: the adapter stops first, then what waited for the host gets an ABORTED error (`cause`:
   * why the host did not open, when that is the reason).
   */
  const abandon = async (message: string, cause?: unknown) => {
    const stopped = stopChannel();
    pending.fail(new PrxError("ABORTED", message, cause === undefined ? {} : { cause }));
    await stopped;
  };

  const self: ChannelProcess = {
    channel,
    opened: async () => {
      const { host, runner } = await pending.when().catch((error: unknown) => {
        // the host's own failure, not the ABORTED error that carries it
        throw isPrxError(error, "ABORTED") && error.cause !== undefined ? error.cause : error;
      });
      return { ...self, host, runner };
    },
    // supervisor messages parse with zod (ipc.ts): loaded at the first one, and handled in the order they came
    receive: (raw) =>
      void (receiving ??= import("./messages.ts").then(({ parentMessages }) =>
        parentMessages({ name, channel, logger, send, host: async () => (await pending.when()).host, stop: self.stop }),
      )).then(
        (receive) => receive(raw),
        (error: unknown) => logger.error(`a message from the gateway was not handled: ${errorMessage(error)}`),
      ),
    stop: () =>
      (stopping ??= (async () => {
        stopped = true;
        opening.abort();
        let participant: ChannelParticipant | null = null;
        if (pending.isOpen) participant = await pending.when();
        else {
          await abandon(`channel ${name} is stopping`);
          participant = await open.catch((error: unknown) => {
            if (!isPrxError(error, "ABORTED")) logger.error(`the agent host did not open before the stop: ${errorMessage(error)}`);
            return null;
          });
        }
        unwatch?.();
        if (participant) {
          const { runner, store, host, cron } = participant;
          await cron.stop();
          await runner.close(stopGraceMs);
          await stopChannel();
          await store
            .writeStatus({
              pid: null,
              state: "stopped",
              last_inbound: runner.stats.lastInbound,
              last_outbound: runner.stats.lastOutbound,
              last_error: lastError.current?.message ?? null,
              last_error_at: lastError.current?.at ?? null,
            })
            .catch((error: unknown) => logger.warn(`liveness row not written: ${errorMessage(error)}`));
          await host.close();
        }
        resolveClosed();
      })()),
    closed,
  };

  void open.then(
    (participant) => {
      if (stopping) return; // the stop closes it
      pending.open(participant);
      participant.report();
      const runtime = participant.host.plugins?.runtime;
      send?.({ type: "opened", generation: runtime?.started ? runtime.current().number : null });
      logger.info(`channel ${name} (${kind}) started: ${channel.health().detail}`);
      // alone (no gateway forwarding its reloads), the process follows config.toml itself
      if (!send) unwatch = followConfig(participant.host, logger);
    },
    async (error: unknown) => {
      if (stopping) return; // the stop reports it
      stopping = abandon(`channel ${name} is stopping: its agent host did not open (${errorMessage(error)})`, error);
      await stopping;
      rejectClosed(error);
    },
  );
  return self;
}

/**
 * A channel run alone applies edits of config.toml to its agent host (providers, tools, autonomy...; its own
 * `[channels.<name>]` settings take a restart). Returns the stop of the watch.
 */
function followConfig(host: AgentHost, logger: Logger): () => void {
  const reloader = new ConfigReloader({ host, path: host.workspace.configPath, logger });
  const watch = watchConfigFile(host.workspace.configPath, () => void reloader.reload());
  if (!watch) logger.warn(`cannot watch ${host.workspace.configPath}; restart the channel to apply edits`);
  return () => watch?.close();
}

/** Connect, then wait until the agent host is open (in-process callers and tests). */
export async function startChannelProcess(options: ChannelProcessOptions): Promise<RunningChannel> {
  const connected = await connectChannelProcess(options);
  return connected.opened();
}
