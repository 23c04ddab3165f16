import type { ChannelConfig, ChannelKind } from "../config/schema.ts";
import { ChannelKinds } from "../config/kinds.ts";
import { PrxError } from "../core/errors.ts";
import type { Channel, ChannelSetup } from "./types.ts";

/** Each platform's module loads only in the process that runs it. */
const FACTORIES: Record<ChannelKind, () => Promise<(setup: ChannelSetup) => Channel>> = {
  telegram: async () => {
    const { TelegramChannel } = await import("./telegram/channel.ts");
    return (setup) => new TelegramChannel(setup);
  },
  webhook: async () => {
    const { WebhookChannel } = await import("./webhook/channel.ts");
    return (setup) => new WebhookChannel(setup);
  },
  slack: async () => {
    const { SlackChannel } = await import("./slack/channel.ts");
    return (setup) => new SlackChannel(setup);
  },
  discord: async () => {
    const { DiscordChannel } = await import("./discord/channel.ts");
    return (setup) => new DiscordChannel(setup);
  },
  whatsapp: async () => {
    const { WhatsAppChannel } = await import("./whatsapp/channel.ts");
    return (setup) => new WhatsAppChannel(setup);
  },
  signal: async () => {
    const { SignalChannel } = await import("./signal/channel.ts");
    return (setup) => new SignalChannel(setup);
  },
  mattermost: async () => {
    const { MattermostChannel } = await import("./mattermost/channel.ts");
    return (setup) => new MattermostChannel(setup);
  },
  teams: async () => {
    const { TeamsChannel } = await import("./teams/channel.ts");
    return (setup) => new TeamsChannel(setup);
  },
  irc: async () => {
    const { IrcChannel } = await import("./irc/channel.ts");
    return (setup) => new IrcChannel(setup);
  },
  email: async () => {
    const { EmailChannel } = await import("./email/channel.ts");
    return (setup) => new EmailChannel(setup);
  },
  matrix: async () => {
    const { MatrixChannel } = await import("./matrix/channel.ts");
    return (setup) => new MatrixChannel(setup);
  },
  feishu: async () => {
    const { FeishuChannel } = await import("./feishu/channel.ts");
    return (setup) => new FeishuChannel(setup);
  },
  googlechat: async () => {
    const { GoogleChatChannel } = await import("./googlechat/channel.ts");
    return (setup) => new GoogleChatChannel(setup);
  },
  line: async () => {
    const { LineChannel } = await import("./line/channel.ts");
    return (setup) => new LineChannel(setup);
  },
};

/** The platform of `[channels.<name>]`: its `kind`, else the name itself when it names a platform. */
export function channelKind(name: string, config: ChannelConfig): ChannelKind {
  if (config.kind) return config.kind;
  if ((ChannelKinds as readonly string[]).includes(name)) return name as ChannelKind;
  throw new PrxError("CHANNEL_CONFIG", `channel "${name}" has no kind, and its name is not a platform`, {
    hint: `add kind = "telegram" (or ${ChannelKinds.join(", ")}) to [channels.${name}]`,
  });
}

export async function createChannel(kind: ChannelKind, setup: ChannelSetup): Promise<Channel> {
  return (await FACTORIES[kind]())(setup);
}
