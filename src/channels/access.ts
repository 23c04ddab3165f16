import type { ChannelConfig } from "../config/schema.ts";
import type { PairingStore } from "../storage/types.ts";
import type { InboundMessage } from "./types.ts";

export type AccessDecision =
  | { kind: "run" }
  /** Nothing runs and nothing is answered (a bot, a group message without mention, a disabled group). */
  | { kind: "ignore"; reason: string }
  /** Nothing runs; the sender is told this (a pairing code, or that they are not allowed). */
  | { kind: "refuse"; reason: string; notice: string; pairingCode?: string };

/**
 * Safe by default: bots are ignored (no bot-to-bot loops); in groups the bot answers only when mentioned
 * (group_policy "mention"); in DMs an unknown sender gets a pairing code and nothing else runs (dm_policy "pairing").
 * Senders in `allow` and approved pairings are always let through a DM policy.
 */
export async function decideAccess(message: InboundMessage, config: ChannelConfig, pairings: PairingStore): Promise<AccessDecision> {
  if (message.senderIsBot && !config.allow_bots) return { kind: "ignore", reason: "sent by a bot" };
  // an open policy lets everyone in: the pairing store is asked only when the answer matters
  const allowed = async () => config.allow.includes(message.senderId) || (await pairings.isApproved(message.channel, message.senderId));
  if (message.chatKind !== "dm") {
    if (config.group_policy === "disabled") return { kind: "ignore", reason: "group messages are disabled" };
    if (config.group_policy === "mention" && !message.mentioned) return { kind: "ignore", reason: "not mentioned" };
    if (config.dm_policy === "open" || (await allowed())) return { kind: "run" };
    // in a group, an unknown sender is not given a code in public: they can pair in a DM
    if (config.dm_policy === "pairing") return { kind: "ignore", reason: "sender not paired (pair in a direct message)" };
    return { kind: "ignore", reason: "sender not in the allowlist" };
  }
  if (config.dm_policy === "open" || (await allowed())) return { kind: "run" };
  if (config.dm_policy === "allowlist") {
    return { kind: "refuse", reason: "sender not in the allowlist", notice: "This assistant is private; you are not on its allowlist." };
  }
  const code = await pairings.request(message.channel, message.senderId, message.senderDisplay);
  return {
    kind: "refuse",
    reason: "pairing requested",
    pairingCode: code,
    notice: `This assistant is private. Pairing code: ${code}\nAsk its owner to run: prx channel pair approve ${code}`,
  };
}
