import { loadConfigCached } from "../config/cache.ts";
import type { ChannelConfig, ChannelKind } from "../config/schema.ts";
import { errorMessage, PrxError } from "../core/errors.ts";
import { openWorkspace, type Workspace } from "../core/workspace.ts";
import { channelKind, createChannel } from "./registry.ts";
import type { Channel, ChannelSetup, OnMessage } from "./types.ts";

/**
 * What a channel process needs to reach its platform, and nothing more: the workspace, its configuration (the cached
 * validation, config/cache.ts) and the platform adapter. The agent host, its storage and plugins are opened after
 * the channel is connected (process.ts); this module does not import them.
 */
export interface ChannelTarget {
  workspace: Workspace;
  /** The `[channels.<name>]` table. */
  config: ChannelConfig;
  kind: ChannelKind;
}

export async function readChannelTarget(name: string, workspaceFlag: string | undefined, env: Record<string, string | undefined>): Promise<ChannelTarget> {
  const workspace = openWorkspace(workspaceFlag);
  const loaded = await loadConfigCached(workspace.configPath, workspace.cacheDir, env);
  const config = loaded.config.channels[name];
  if (!config) {
    const known = Object.keys(loaded.config.channels);
    throw new PrxError("CHANNEL_CONFIG", `no channel "${name}" in ${loaded.path ?? "config.toml"}`, {
      hint: known.length ? `configured channels: ${known.join(", ")}` : `add a [channels.${name}] table to config.toml`,
    });
  }
  return { workspace, config, kind: channelKind(name, config) };
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
