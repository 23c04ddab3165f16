import type { ChannelConfig } from "../config/schema.ts";
import type { ChannelDeliver } from "../tools/builtins/types.ts";

/** channelDeliverer (deliver.ts), loaded with the first message sent: a host that sends none never loads the adapters. */
export function lazyChannelDeliverer(channels: Record<string, ChannelConfig>, env: Record<string, string | undefined>): ChannelDeliver {
  return async (target, text, signal, workspace) => (await import("./deliver.ts")).channelDeliverer(channels, env)(target, text, signal, workspace);
}
