import type { Config } from "../../config/schema.ts";
import type { PluginHostServices } from "../types.ts";

/**
 * What the remote loader needs from the host beyond PluginHostServices: the config (for the model useModel's
 * TEXT_SMALL/TEXT_LARGE go to). The plugin runtime registers it for its host services object; a host without one
 * falls back to the workspace's config.toml at call time.
 */
export interface RemoteHostContext {
  config(): Config;
}

const contexts = new WeakMap<PluginHostServices, RemoteHostContext>();

export function setRemoteHostContext(host: PluginHostServices, context: RemoteHostContext): void {
  contexts.set(host, context);
}

export function remoteHostContext(host: PluginHostServices): RemoteHostContext | undefined {
  return contexts.get(host);
}
