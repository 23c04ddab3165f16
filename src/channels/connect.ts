import { loadConfigCached } from "../config/cache.ts";
import type { LoadedConfig } from "../config/loader.ts";
import type { ChannelConfig, ChannelKind } from "../config/schema.ts";
import { errorMessage, PrxError } from "../core/errors.ts";
import { openWorkspace } from "../core/workspace.ts";
import { channelKind, createChannel } from "./registry.ts";
import type { Channel, ChannelSetup, OnMessage } from "./types.ts";

/**
 * What a channel process needs to reach its platform, and nothing more: its `[channels.<name>]` table from the
 * workspace's configuration and the platform adapter. The agent host, its storage and plugins are opened after the
 * channel is connected (process.ts); this module does not import them.
 */
export interface ChannelTarget {
  /** The workspace directory (the agent host canonicalizes it when it opens). */
  root: string;
  /** The `[channels.<name>]` table. */
  config: ChannelConfig;
  kind: ChannelKind;
  /** The whole configuration it came from: the agent host opens with it instead of reading it again. */
  loaded: LoadedConfig;
}

/** The channel's configuration: the workspace is opened and its config loaded as every command does. */
export async function readChannelTarget(name: string, workspaceFlag: string | undefined, env: Record<string, string | undefined>): Promise<ChannelTarget> {
  const workspace = openWorkspace(workspaceFlag);
  const root = workspace.root;
  const loaded = await loadConfigCached(workspace.configPath, workspace.cacheDir, env);
  const config = loaded.config.channels[name];
  if (!config) {
    const known = Object.keys(loaded.config.channels);
    throw new PrxError("CHANNEL_CONFIG", `no channel "${name}" in ${loaded.path ?? "config.toml"}`, {
      hint: known.length ? `configured channels: ${known.join(", ")}` : `add a [channels.${name}] table to config.toml`,
    });
  }
  return { root, config, kind: channelKind(name, config), loaded };
}

/**
 * Build the platform adapter and start it: resolves once it is connected (or polling). When `signal` aborts first
 * (a signal to the process), the adapter is stopped and this rejects with ABORTED.
 */
export async function connectChannel(kind: ChannelKind, setup: ChannelSetup, onMessage: OnMessage, signal?: AbortSignal): Promise<Channel> {
  const channel = await createChannel(kind, setup);
  const abort = () => void channel.stop().catch((error: unknown) => setup.logger.warn(`stopping the connection failed: ${errorMessage(error)}`));
  if (signal?.aborted) throw aborted(setup.name);
  signal?.addEventListener("abort", abort, { once: true });
  try {
    await channel.start(onMessage);
  } catch (error) {
    if (signal?.aborted) throw aborted(setup.name, error);
    await channel.stop();
    throw error;
  } finally {
    signal?.removeEventListener("abort", abort);
  }
  if (signal?.aborted) {
    await channel.stop();
    throw aborted(setup.name);
  }
  return channel;
}

function aborted(name: string, cause?: unknown): PrxError {
  return new PrxError("ABORTED", `channel ${name} stopped while connecting`, { cause });
}
