import { errorMessage, PrxError } from "../../core/errors.ts";
import { ATTACHMENT_FETCH_TIMEOUT_MS, CHANNEL_MAX_ATTACHMENTS, DISCORD_MAX_MESSAGE_CHARS } from "../limits.ts";
import { platformDownload } from "../platform-download.ts";
import { PlatformChannel } from "../base.ts";
import type { ChannelSetup, InboundAttachment, InboundMessage, OnMessage, OutboundAttachment, OutboundReply, ReplyTarget } from "../types.ts";

/** Where Discord serves attachments. */
const DISCORD_MEDIA_HOSTS = ["cdn.discordapp.com", "media.discordapp.net"];
import { runDiscordGateway } from "./gateway.ts";
import { DISCORD_DEFAULT_API, DiscordRest } from "./rest.ts";
import { CreatedMessageSchema, DiscordUserSchema, GatewayBotSchema, MessageCreateSchema, ReadySchema, type MessageCreate } from "./wire.ts";

/** Image and audio attachments (a voice message is one audio/ogg attachment), fetched from their CDN URL when the turn runs. */
function attachmentsOf(message: MessageCreate): InboundAttachment[] {
  const out: InboundAttachment[] = [];
  for (const file of message.attachments.slice(0, CHANNEL_MAX_ATTACHMENTS)) {
    const kind = file.content_type?.startsWith("image/") ? "image" : file.content_type?.startsWith("audio/") ? "audio" : null;
    if (!kind) continue;
    out.push({ kind, ref: file.url, bytes: file.size, ...(file.duration_secs === undefined ? {} : { seconds: file.duration_secs }) });
  }
  return out;
}

export function normalizeDiscord(channel: string, message: MessageCreate, botId: string | null): InboundMessage {
  const attachments = attachmentsOf(message);
  return {
    ...(attachments.length > 0 ? { attachments } : {}),
    id: message.id,
    channel,
    chatId: message.channel_id,
    chatKind: message.guild_id ? "group" : "dm",
    threadId: null,
    senderId: message.author.id,
    senderDisplay: (message.author.global_name ?? message.author.username).slice(0, 256),
    senderIsBot: message.author.bot === true || message.author.id === botId,
    text: message.content,
    replyTo: null,
    mentioned: botId !== null && (message.mentions.some((m) => m.id === botId) || message.referenced_message?.author?.id === botId),
    timestamp: Date.parse(message.timestamp) || Date.now(),
  };
}

/** Discord: the Gateway WebSocket for MESSAGE_CREATE, REST for replies (2000-character parts) and typing. */
export class DiscordChannel extends PlatformChannel {
  readonly kind = "discord" as const;
  readonly capabilities = { edit: true, threads: true, maxMessageLength: DISCORD_MAX_MESSAGE_CHARS, typing: true, attachments: true };
  private readonly rest: DiscordRest;
  private readonly token: string;
  private botId: string | null = null;
  private chain: Promise<void> = Promise.resolve();

  constructor(setup: ChannelSetup) {
    super(setup);
    const token = (this.token = this.requireSecret("token_env", "Discord bot token", "DISCORD_BOT_TOKEN"));
    this.rest = new DiscordRest(setup.config.api_base_url ?? DISCORD_DEFAULT_API, token, this.limits.requestTimeoutMs);
  }

  /** https://discord.com/developers/docs/resources/user#get-current-user: the bot the token belongs to. */
  async checkCredentials(): Promise<string> {
    const me = (await this.rest.request("GET", "/users/@me", undefined, DiscordUserSchema, "users/@me", this.stopper.signal))!;
    return `Discord bot ${me.username} (id ${me.id})`;
  }

  async start(onMessage: OnMessage): Promise<void> {
    let connected!: () => void;
    const first = new Promise<void>((resolve) => (connected = resolve));
    this.loop = runDiscordGateway({
      token: this.token,
      gatewayUrl: async () => (await this.rest.request("GET", "/gateway/bot", undefined, GatewayBotSchema, "gateway", this.stopper.signal))!.url,
      onDispatch: (type, data) => {
        if (type === "READY") {
          const ready = ReadySchema.safeParse(data);
          if (ready.success) this.botId = ready.data.user.id;
          return;
        }
        if (type !== "MESSAGE_CREATE") return;
        const parsed = MessageCreateSchema.safeParse(data);
        if (!parsed.success) return this.setup.logger.warn("Discord: skipped a malformed MESSAGE_CREATE");
        const message = normalizeDiscord(this.name, parsed.data, this.botId);
        // dispatches are stored in the order the gateway sent them
        this.chain = this.chain.then(() => onMessage(message)).catch((error: unknown) => this.setup.logger.error(`Discord: message not stored: ${errorMessage(error)}`));
      },
      onState: (ok, detail) => {
        this.state = { ok, detail };
        if (ok) connected();
      },
      logger: this.setup.logger,
      signal: this.stopper.signal,
    }).catch((error: unknown) => {
      this.state = { ok: false, detail: errorMessage(error) };
      this.setup.logger.error(`Discord gateway stopped: ${errorMessage(error)}`);
      // a fatal close (bad token, intents) ends the process so the supervisor reports it
      process.exitCode = 1;
      throw error;
    });
    await this.firstConnection(first, this.loop);
  }

  /**
   * A message with one file (https://discord.com/developers/docs/reference#uploading-files): multipart/form-data with
   * the message as `payload_json`, its `attachments` naming `files[0]`.
   */
  protected override async upload(target: ReplyTarget, attachment: OutboundAttachment): Promise<string> {
    const payload: Record<string, unknown> = { attachments: [{ id: 0, filename: attachment.name }], allowed_mentions: { parse: [] } };
    if (target.replyTo) payload.message_reference = { message_id: target.replyTo, fail_if_not_exists: false };
    const form = new FormData();
    form.append("payload_json", JSON.stringify(payload));
    form.append("files[0]", new Blob([attachment.bytes], { type: attachment.mime }), attachment.name);
    const created = await this.rest.request("POST", `/channels/${target.chatId}/messages`, form, CreatedMessageSchema, `messages:${target.chatId}`, this.stopper.signal);
    return created!.id;
  }

  async send(reply: OutboundReply): Promise<string> {
    const body: Record<string, unknown> = { content: reply.text, allowed_mentions: { parse: [] } };
    if (reply.replyTo) body.message_reference = { message_id: reply.replyTo, fail_if_not_exists: false };
    const created = await this.retrying("Create Message", () =>
      this.rest.request("POST", `/channels/${reply.chatId}/messages`, body, CreatedMessageSchema, `messages:${reply.chatId}`, this.stopper.signal),
    );
    return created!.id;
  }

  /** An attachment's bytes from Discord's CDN (or the configured API host), within `maxBytes`. */
  async fetchAttachment(attachment: InboundAttachment, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
    const url = new URL(attachment.ref);
    const apiHost = new URL(this.setup.config.api_base_url ?? DISCORD_DEFAULT_API).host;
    if (!DISCORD_MEDIA_HOSTS.includes(url.host) && url.host !== apiHost) {
      throw new PrxError("CHANNEL_PLATFORM", `an attachment URL on ${url.host} is not Discord's`);
    }
    const both = AbortSignal.any([signal, this.stopper.signal]);
    const got = await platformDownload("discord", "attachment download", url.href, { timeoutMs: ATTACHMENT_FETCH_TIMEOUT_MS, maxBytes, signal: both });
    if (!got.ok) throw new PrxError("CHANNEL_PLATFORM", `attachment download: HTTP ${got.status}`);
    return got.bytes;
  }

  override async typing(chatId: string): Promise<void> {
    await this.rest.request("POST", `/channels/${chatId}/typing`, undefined, null, `typing:${chatId}`, this.stopper.signal);
  }

}
