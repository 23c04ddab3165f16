import type { AgentHost } from "../agent/index.ts";
import type { ChannelSupervisor } from "../channels/supervisor.ts";
import type { ConfigChanges } from "../config/changes.ts";
import type { ChannelConfig, Config } from "../config/schema.ts";
import { errorMessage } from "../core/errors.ts";
import { channelWebhookFront } from "../gateway/channel-webhook.ts";
import type { FrontRoute } from "../gateway/server.ts";
import type { GatewayMount, HealthCheck } from "../gateway/types.ts";

export interface GatewayChannels {
  /** /api/channels, the pairing API and the webhooks, loaded when the gateway builds its route table. */
  mounts(): Promise<GatewayMount[]>;
  /** /channels/<name>/webhook, answered beside the app (gateway/channel-webhook.ts). */
  front: FrontRoute[];
  checks: Record<string, () => HealthCheck>;
  /** Spawn the enabled channel processes (after the gateway listens). */
  start(): void;
  /**
   * A config.toml the gateway applied: channels enabled, disabled or changed start, stop or restart; the others apply
   * the rest of it in their own process. Returns what it did.
   */
  reconfigure(next: Config, changes: ConfigChanges): Promise<string[]>;
  /** Once the gateway's plugins are loaded: forward every plugin reload to the channel processes. */
  followReloads(): void;
  stop(): Promise<void>;
}

/** /health's channels check while no channel is configured (the supervisor says the same once loaded with none). */
const NO_CHANNELS: HealthCheck = { ok: true, detail: "no channels enabled" };

/**
 * The channel supervisor of `prx gateway`: the enabled `[channels.<name>]` run as child processes; /api/channels,
 * the pairing API and /channels/<name>/webhook are mounted; /health reports each channel. The supervisor and its
 * modules (process supervision, the children's wire) load at start when config.toml has a `[channels]` table, else
 * with the first request or reload that needs them (a reload that adds a channel, a channel's webhook or restart).
 */
export async function gatewayChannels(host: AgentHost): Promise<GatewayChannels> {
  let supervisor: ChannelSupervisor | null = null;
  let loading: Promise<ChannelSupervisor> | undefined;
  let started = false;
  // `channels`: those in effect when it loads; loaded later than the start, none were (a reload's go to reconfigure)
  const load = (channels: Record<string, ChannelConfig> = {}): Promise<ChannelSupervisor> =>
    (loading ??= import("../channels/supervisor.ts").then(({ ChannelSupervisor }) => {
      supervisor = new ChannelSupervisor({ workspace: host.workspace.root, channels });
      if (started) supervisor.start();
      return supervisor;
    }));
  if (Object.keys(host.config.channels).length > 0) await load(host.config.channels);
  // the pairing store is made with the first pairing request, not at start
  const pairings = () => host.storage.pairings;
  const api = {
    list: () => supervisor?.list() ?? [],
    restart: async (name: string) => (await load()).restart(name),
    forward: async (name: string, request: { method: string; query?: string; headers: Record<string, string>; body: string }) => (await load()).forward(name, request),
    health: () => supervisor?.health() ?? NO_CHANNELS,
    pairings: {
      list: () => pairings().list(),
      approve: (code: string, owner?: boolean) => pairings().approve(code, owner),
      revoke: (sender: string, channel?: string) => pairings().revoke(sender, channel),
    },
  };
  let unfollow: (() => void) | null = null;
  return {
    mounts: async () => [(await import("../gateway/routes/channels.ts")).channelRoutes(api, () => host.config.gateway.max_body_bytes)],
    front: [channelWebhookFront(api, () => host.config.gateway.max_body_bytes)],
    checks: { channels: () => api.health() },
    start: () => {
      started = true;
      supervisor?.start();
    },
    async reconfigure(next, changes) {
      const channelsChanged = changes.changed.some((key) => key.startsWith("channels."));
      const done = channelsChanged ? await (await load()).reconfigure(next.channels) : [];
      if (changes.changed.some((key) => !key.startsWith("channels."))) supervisor?.forwardConfigReload();
      return done;
    },
    followReloads() {
      const runtime = host.plugins?.runtime;
      const following = supervisor;
      if (!runtime || !following || following.names.length === 0) return;
      unfollow = runtime.onGeneration((next) => {
        const rebuilt = next.plugins.filter((p) => p.outcome === "rebuilt").map((p) => p.name);
        try {
          following.forwardReload(rebuilt.length === 1 ? rebuilt[0]! : null, next.number);
        } catch (error) {
          process.stderr.write(`prx gateway: could not forward the plugin reload to the channels: ${errorMessage(error)}\n`);
        }
      });
    },
    async stop() {
      unfollow?.();
      await supervisor?.stop();
    },
  };
}
