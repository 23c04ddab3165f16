import { openAgentHost, type AgentHost } from "../agent/index.ts";
import { createPluginExtensions } from "../agent/plugin-extensions.ts";
import { errorMessage, PrxError } from "../core/errors.ts";
import { createLogger } from "../core/logger.ts";
import { ParentMessageSchema, type ChildMessage, type ParentMessage } from "./ipc.ts";
import { CHANNEL_STOP_GRACE_MS, PARENT_WATCH_INTERVAL_MS, type PlatformLimits } from "./limits.ts";
import { channelKind, createChannel } from "./registry.ts";
import { ChannelRunner } from "./runner.ts";
import { ChannelStore } from "./store.ts";
import type { Channel } from "./types.ts";
import { WebhookReplies } from "./webhook/replies.ts";

export interface ChannelProcessOptions {
  name: string;
  workspace?: string;
  env?: Record<string, string | undefined>;
  /** Messages to the supervisor (process.send in a supervised child); undefined in the foreground. */
  send?: (message: ChildMessage) => void;
  /** Shorter time limits for tests; each defaults to its constant in limits.ts. */
  limits?: Partial<ChannelProcessLimits>;
}

export interface ChannelProcessLimits extends PlatformLimits {
  /** CHANNEL_STOP_GRACE_MS */
  stopGraceMs: number;
  /** TYPING_INTERVAL_MS */
  typingIntervalMs: number;
  /** WEBHOOK_SYNC_WAIT_MS */
  webhookSyncWaitMs: number;
}

export interface RunningChannel {
  host: AgentHost;
  channel: Channel;
  runner: ChannelRunner;
  /** A message from the supervisor (parsed here). */
  receive(raw: unknown): void;
  stop(): Promise<void>;
  /** Resolves once stopped. */
  closed: Promise<void>;
}

/**
 * One channel as a full participant: opens the workspace with its own plugin runtime, resumes what a previous process
 * left unanswered, connects to the platform and runs every admitted message through the agent host's executeTurn.
 */
export async function startChannelProcess(options: ChannelProcessOptions): Promise<RunningChannel> {
  const env = options.env ?? process.env;
  const logger = createLogger(`channel.${options.name}`);
  const host = await openAgentHost({ workspace: options.workspace, env, extend: createPluginExtensions() });
  let channel: Channel;
  let runner: ChannelRunner;
  let store: ChannelStore;
  const replies = new WebhookReplies({ waitMs: options.limits?.webhookSyncWaitMs });
  const stopGraceMs = options.limits?.stopGraceMs ?? CHANNEL_STOP_GRACE_MS;
  try {
    const config = host.config.channels[options.name];
    if (!config) {
      const known = Object.keys(host.config.channels);
      throw new PrxError("CHANNEL_CONFIG", `no channel "${options.name}" in ${host.configPath ?? "config.toml"}`, {
        hint: known.length ? `configured channels: ${known.join(", ")}` : `add a [channels.${options.name}] table to config.toml`,
      });
    }
    const kind = channelKind(options.name, config);
    // in the [storage] backend: the workspace database, or PostgreSQL shared by channel processes on every host
    store = new ChannelStore(host.storage.channels, options.name);
    const pairings = host.storage.pairings;
    let runnerRef: ChannelRunner | null = null;
    channel = await createChannel(kind, {
      name: options.name,
      config,
      env,
      logger,
      cursor: { get: () => store.getCursor(), set: (value) => store.setCursor(value) },
      waitForCapacity: () => runnerRef?.waitForCapacity() ?? Promise.resolve(),
      awaitReply: (id) => replies.wait(id),
      // pairing: an unknown inviter is joined so they can be given a code (nothing else runs for them)
      mayInvite: async (sender) =>
        config.dm_policy !== "allowlist" || config.allow.includes(sender) || (await pairings.isApproved(options.name, sender)),
      limits: options.limits,
    });
    const report = () => {
      const stats = runner.stats;
      store
        .writeStatus({ pid: process.pid, state: channel.health().ok ? "running" : "degraded", last_inbound: stats.lastInbound, last_outbound: stats.lastOutbound, last_error: stats.lastError })
        .catch((error: unknown) => logger.warn(`liveness row not written: ${errorMessage(error)}`));
      options.send?.({ type: "status", health: channel.health(), stats: { ...stats } });
    };
    runner = runnerRef = new ChannelRunner({
      channel,
      host,
      store,
      pairings,
      config,
      logger,
      onStats: report,
      onAnswered: (id, parts) => replies.settle(id, parts),
      typingIntervalMs: options.limits?.typingIntervalMs,
    });
    await store.prune();
    await runner.resume();
    await channel.start(runner.onMessage);
    report();
    logger.info(`channel ${options.name} (${kind}) started: ${channel.health().detail}`);
  } catch (error) {
    await host.close();
    throw error;
  }

  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      await runner.close(stopGraceMs);
      await channel.stop().catch((error: unknown) => logger.error(`channel stop failed: ${errorMessage(error)}`));
      await store
        .writeStatus({ pid: null, state: "stopped", last_inbound: runner.stats.lastInbound, last_outbound: runner.stats.lastOutbound, last_error: runner.stats.lastError })
        .catch((error: unknown) => logger.warn(`liveness row not written: ${errorMessage(error)}`));
      await host.close();
      resolveClosed();
    })());

  const handle = async (message: ParentMessage) => {
    switch (message.type) {
      case "stop":
        return void stop();
      case "reload_plugins": {
        const runtime = host.plugins?.runtime;
        if (!runtime) return options.send?.({ type: "reloaded", generation: null, error: "no plugin runtime in this process" });
        try {
          const generation = await runtime.reload(message.name ?? undefined, { force: true, all: message.name === null });
          logger.info(`plugins reloaded with the gateway: generation ${generation}`);
          options.send?.({ type: "reloaded", generation, error: null });
        } catch (error) {
          logger.error(`plugin reload forwarded by the gateway failed: ${errorMessage(error)}`);
          options.send?.({ type: "reloaded", generation: runtime.current().number, error: errorMessage(error) });
        }
        return;
      }
      case "http": {
        const response = channel.handleHttp
          ? await channel.handleHttp(message.request).catch((error: unknown) => {
              logger.error(`forwarded request failed: ${errorMessage(error)}`);
              return { status: 500, headers: {}, body: JSON.stringify({ error: errorMessage(error) }) };
            })
          : { status: 404, headers: {}, body: JSON.stringify({ error: `channel ${options.name} does not receive over HTTP` }) };
        options.send?.({ type: "http_result", id: message.id, response });
      }
    }
  };
  const receive = (raw: unknown) => {
    const parsed = ParentMessageSchema.safeParse(raw);
    if (!parsed.success) return logger.warn("ignored a malformed message from the gateway", { issue: parsed.error.issues[0]?.message });
    void handle(parsed.data);
  };
  options.send?.({ type: "ready", pid: process.pid, generation: host.plugins?.runtime.started ? host.plugins.runtime.current().number : null });
  return { host, channel, runner, receive, stop, closed };
}

export interface WatchParentOptions {
  /** Defaults to PARENT_WATCH_INTERVAL_MS. */
  intervalMs?: number;
  /** The parent's pid as the system reports it now (defaults to process.ppid). */
  parentPid?: () => number;
}

/**
 * Exit when the gateway that started this process is gone (its IPC channel closed, or this process re-parented):
 * a channel process never outlives its supervisor.
 */
export function watchParent(onGone: () => void, options: WatchParentOptions = {}): () => void {
  const parentPid = options.parentPid ?? (() => process.ppid);
  const parent = parentPid();
  const timer = setInterval(() => {
    if (parentPid() !== parent) onGone();
  }, options.intervalMs ?? PARENT_WATCH_INTERVAL_MS);
  timer.unref();
  process.on("disconnect", onGone);
  return () => {
    clearInterval(timer);
    process.off("disconnect", onGone);
  };
}
