import type { ChannelConfig } from "../config/schema.ts";
import { PrxError } from "../core/errors.ts";
import { createLogger } from "../core/logger.ts";
import type { ChannelDeliver } from "../tools/builtins/types.ts";
import { channelKind, createChannel } from "./registry.ts";
import { sendLinkedFiles } from "./reply-files.ts";
import { splitMessage } from "./split.ts";

/**
 * message_send's way to a chat: the channel's own platform adapter, built for the message in whichever process runs
 * the turn (gateway, channel process, chat, agent) and sending the text split at the platform's limit, then the
 * workspace files the text links, under the rules of reply files (reply-files.ts); a platform without files keeps the
 * links as text. Nothing is received: the adapter is never started, so it does not compete with the channel's process
 * for updates.
 */
export function channelDeliverer(channels: Record<string, ChannelConfig>, env: Record<string, string | undefined>): ChannelDeliver {
  return async (target, text, signal, workspace) => {
    const config = Object.hasOwn(channels, target.channel) ? channels[target.channel] : undefined;
    if (!config) {
      const known = Object.keys(channels);
      throw new PrxError("CHANNEL_CONFIG", `no channel "${target.channel}" in config.toml`, {
        hint: known.length ? `configured channels: ${known.join(", ")}` : `add a [channels.${target.channel}] table`,
      });
    }
    const kind = channelKind(target.channel, config);
    if (kind === "webhook" && !config.callback_url) {
      throw new PrxError("CHANNEL_CONFIG", `channel ${target.channel} is a webhook without callback_url: it can only answer the requests it gets`, {
        hint: `set callback_url in [channels.${target.channel}] to send it messages`,
      });
    }
    const logger = createLogger(`channel.${target.channel}`);
    const channel = await createChannel(kind, {
      name: target.channel,
      config,
      env,
      logger,
      cursor: { get: () => null, set: () => undefined },
      ...(workspace ? { workspace } : {}),
    });
    try {
      const parts = splitMessage(text, channel.capabilities.maxMessageLength);
      for (let i = 0; i < parts.length; i++) {
        if (signal.aborted) throw new PrxError("ABORTED", `the turn ended after ${i} of ${parts.length} parts were sent`);
        await channel.send({ chatId: target.chat, threadId: target.thread, replyTo: null, text: parts[i]! });
      }
      if (!workspace) return { parts: parts.length };
      if (signal.aborted) throw new PrxError("ABORTED", `the turn ended after the text was sent, before its files`);
      const { sent, notes } = await sendLinkedFiles(channel, { chatId: target.chat, threadId: target.thread, replyTo: null }, workspace, text, logger);
      return { parts: parts.length, files: sent, notes };
    } finally {
      await channel.stop();
    }
  };
}
