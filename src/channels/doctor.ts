import type { ChannelKind } from "../config/schema.ts";
import { createLogger } from "../core/logger.ts";
import { readChannelTarget } from "./connect.ts";
import { createChannel } from "./registry.ts";

export interface ChannelCheck {
  kind: ChannelKind;
  /** What the platform answered; null when the platform has no call that checks credentials alone. */
  detail: string | null;
}

/**
 * `prx channel doctor <name>`: the channel's adapter built from config.toml and this environment, its credentials
 * checked against the platform (api_base_url and the other endpoints as configured), nothing received or sent. A
 * missing key, variable or a refused credential is the adapter's typed error.
 */
export async function checkChannel(name: string, workspace: string | undefined, env: Record<string, string | undefined>): Promise<ChannelCheck> {
  const target = await readChannelTarget(name, workspace, env);
  const channel = await createChannel(target.kind, { name, config: target.config, env, logger: createLogger(`channel.${name}`), cursor: { get: () => null, set: () => undefined } });
  try {
    return { kind: target.kind, detail: channel.check ? await channel.check() : null };
  } finally {
    await channel.stop();
  }
}
