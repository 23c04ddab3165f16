import type { z } from "zod";
import { errorMessage, PrxError } from "../../core/errors.ts";
import { jsonAnswer, PlatformChannel } from "../base.ts";
import { ATTACHMENT_FETCH_TIMEOUT_MS, CHANNEL_MAX_ATTACHMENTS, LINE_LOADING_SECONDS, LINE_MAX_MESSAGE_CHARS, LINE_REPLY_TOKEN_TTL_MS } from "../limits.ts";
import { platformDownload } from "../platform-download.ts";
import { PlatformError } from "../platform-error.ts";
import { AnyObjectAnswerSchema, platformJson } from "../platform-json.ts";
import { RememberedChats } from "../remembered-chats.ts";
import { verifyLineSignature } from "../signature.ts";
import type { ChannelSetup, ForwardedRequest, ForwardedResponse, InboundAttachment, InboundMessage, OnMessage, OutboundReply } from "../types.ts";
import {
  LINE_INVALID_REPLY_TOKEN,
  LINE_RETRY_KEY_HEADER,
  LINE_SIGNATURE_HEADER,
  LineBotInfoSchema,
  LineErrorSchema,
  LineEventSchema,
  LineMessageSchema,
  LineProfileSchema,
  LineSentSchema,
  LineWebhookSchema,
  type LineEvent,
  type LineMessage,
} from "./wire.ts";

export const LINE_DEFAULT_API = "https://api.line.me";
export const LINE_DEFAULT_DATA_API = "https://api-data.line.me";

const IMAGE_FILE = /\.(png|jpe?g|gif|webp|heic)$/i;
const AUDIO_FILE = /\.(m4a|mp3|wav|ogg|oga|aac|amr)$/i;

/** The text of a message and what it carries for the model: images, audio, image or audio files; a note for other files. */
function contentOf(message: LineMessage): { text: string; attachments: InboundAttachment[] } | undefined {
  const onLine = message.contentProvider === undefined || message.contentProvider.type === "line";
  switch (message.type) {
    case "text":
      return { text: withoutSelfMentions(message), attachments: [] };
    case "image":
      return onLine ? { text: "", attachments: [{ kind: "image", ref: message.id }] } : { text: "[an image hosted outside LINE was sent; it was not read]", attachments: [] };
    case "audio":
      return onLine ? { text: "", attachments: [{ kind: "audio", ref: message.id }] } : { text: "[audio hosted outside LINE was sent; it was not read]", attachments: [] };
    case "file": {
      const name = message.fileName ?? "file";
      const kind = IMAGE_FILE.test(name) ? "image" : AUDIO_FILE.test(name) ? "audio" : null;
      return kind ? { text: "", attachments: [{ kind, ref: message.id, ...(message.fileSize === undefined ? {} : { bytes: message.fileSize }) }] } : { text: `[a file was sent: ${name}; only images and audio are read]`, attachments: [] };
    }
    default:
      return undefined;
  }
}

/** A text without the bot's own @-mentions (cut by their index and length, from the end so earlier ones keep place). */
function withoutSelfMentions(message: LineMessage): string {
  let text = message.text ?? "";
  const self = (message.mention?.mentionees ?? []).filter((m) => m.isSelf).sort((a, b) => b.index - a.index);
  for (const m of self) text = text.slice(0, m.index) + text.slice(m.index + m.length);
  return text.replace(/\s{2,}/g, " ").trim();
}

/** A message event -> the inbound shape (undefined for events and message types prx does not read). */
export function normalizeLine(channel: string, event: LineEvent): InboundMessage | undefined {
  if (event.type !== "message" || !event.source) return undefined;
  const parsed = LineMessageSchema.safeParse(event.message);
  if (!parsed.success) return undefined;
  const content = contentOf(parsed.data);
  const source = event.source;
  const senderId = source.userId;
  if (!content || !senderId) return undefined;
  const chatId = source.type === "user" ? source.userId : source.type === "group" ? source.groupId : source.roomId;
  return {
    // a redelivered event keeps its webhookEventId: it is answered once
    id: event.webhookEventId,
    channel,
    chatId,
    chatKind: source.type === "user" ? "dm" : "group",
    threadId: null,
    senderId,
    senderDisplay: senderId,
    senderIsBot: false,
    text: content.text,
    replyTo: null,
    mentioned: source.type === "user" || (parsed.data.mention?.mentionees ?? []).some((m) => m.isSelf === true),
    timestamp: event.timestamp,
    ...(content.attachments.length > 0 ? { attachments: content.attachments.slice(0, CHANNEL_MAX_ATTACHMENTS) } : {}),
  };
}

/**
 * The LINE Messaging API: webhook events arrive through the gateway (`/channels/<name>/webhook`, signed with
 * x-line-signature by the channel secret); a reply goes out with the event's reply token while it is fresh and
 * unused, else (later parts, after a restart, an expired token) with the push API and a retry key, so a retried push
 * is delivered once.
 */
export class LineChannel extends PlatformChannel {
  readonly kind = "line" as const;
  readonly capabilities = { edit: false, threads: false, maxMessageLength: LINE_MAX_MESSAGE_CHARS, typing: true };
  private readonly token: string;
  private readonly channelSecret: string;
  private readonly root: string;
  private readonly dataRoot: string;
  private onMessage: OnMessage | null = null;
  /** Per inbound event id: its reply token and when it was issued (a token is used once, then forgotten). */
  private readonly replyTokens = new RememberedChats<{ token: string; at: number }>();
  /** Display names by user id, as the profile API gave them (or the id, when it would not). */
  private readonly names = new RememberedChats<string>();
  private readonly now: () => number;

  constructor(setup: ChannelSetup) {
    super(setup);
    this.token = this.requireSecret("token_env", "LINE channel access token", "LINE_CHANNEL_ACCESS_TOKEN");
    this.channelSecret = this.requireSecret("secret_env", "LINE channel secret (signs webhook POSTs)", "LINE_CHANNEL_SECRET");
    this.root = (setup.config.api_base_url ?? LINE_DEFAULT_API).replace(/\/$/, "");
    this.dataRoot = (setup.config.data_api_url ?? LINE_DEFAULT_DATA_API).replace(/\/$/, "");
    this.now = setup.clock ?? Date.now;
  }

  private api<T>(what: string, path: string, schema: z.ZodType<T>, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    return platformJson({
      platform: "line",
      what,
      url: `${this.root}${path}`,
      headers: { authorization: `Bearer ${this.token}`, ...headers },
      body,
      schema,
      bounds: { timeoutMs: this.limits.requestTimeoutMs, signal: this.stopper.signal },
      explain: (status, json) => {
        const error = LineErrorSchema.safeParse(json);
        if (!error.success) return undefined;
        const detail = error.data.details?.map((d) => `${d.property ?? ""} ${d.message ?? ""}`.trim()).join("; ");
        return { message: `${error.data.message}${detail ? ` (${detail})` : ""}`, retryable: status === 429 || status >= 500 };
      },
    });
  }

  /** The bot's info: the channel access token works (start and `prx channel doctor`). */
  async checkCredentials(): Promise<string> {
    const bot = await this.api("bot info", "/v2/bot/info", LineBotInfoSchema);
    return `LINE bot ${bot.displayName ?? bot.userId}${bot.basicId ? ` (${bot.basicId})` : ""}`;
  }

  async start(onMessage: OnMessage): Promise<void> {
    this.onMessage = onMessage;
    const bot = await this.retrying("bot info", () => this.checkCredentials());
    this.state = { ok: true, detail: `${bot} through the gateway's webhook` };
  }

  async handleHttp(request: ForwardedRequest): Promise<ForwardedResponse> {
    if (request.method !== "POST") return jsonAnswer(405, { error: "use POST" });
    const admitted = this.admitSigned(request, verifyLineSignature(this.channelSecret, request.headers[LINE_SIGNATURE_HEADER], request.body));
    if ("refused" in admitted) return admitted.refused;
    const body = LineWebhookSchema.safeParse(admitted.json);
    if (!body.success) return jsonAnswer(400, { error: "not a LINE webhook body" });
    for (const raw of body.data.events) {
      const event = LineEventSchema.safeParse(raw);
      if (!event.success) {
        this.setup.logger.warn("LINE: skipped a malformed event");
        continue;
      }
      if (event.data.mode === "standby") continue;
      const message = normalizeLine(this.name, event.data);
      if (!message) {
        this.setup.logger.debug(`LINE: skipped a ${event.data.type} event`);
        continue;
      }
      message.senderDisplay = await this.displayName(message.senderId);
      // a redelivered event's token may be stale: it counts from the event's own time
      if (event.data.replyToken) this.replyTokens.set(message.id, { token: event.data.replyToken, at: event.data.deliveryContext.isRedelivery ? event.data.timestamp : this.now() });
      // stored before the 200: an event LINE redelivers is answered once by its webhookEventId
      await this.onMessage!(message);
    }
    return this.storedAnswer(jsonAnswer(200, {}));
  }

  /** A user's LINE name (#get-profile: users who added the bot as a friend), looked up once; the id when it fails. */
  private async displayName(userId: string): Promise<string> {
    const known = this.names.get(userId);
    if (known !== undefined) return known;
    let name = userId;
    try {
      name = (await this.api("profile", `/v2/bot/profile/${encodeURIComponent(userId)}`, LineProfileSchema)).displayName.slice(0, 256);
    } catch (error) {
      this.setup.logger.debug(`LINE: no profile of ${userId}: ${errorMessage(error)}`);
    }
    this.names.set(userId, name);
    return name;
  }

  async send(reply: OutboundReply): Promise<string> {
    const messages = [{ type: "text", text: reply.text }];
    const fresh = reply.replyTo === null ? undefined : this.replyTokens.get(reply.replyTo);
    if (fresh && reply.replyTo !== null) {
      this.replyTokens.delete(reply.replyTo);
      if (this.now() - fresh.at <= LINE_REPLY_TOKEN_TTL_MS) {
        try {
          const sent = await this.api("reply", "/v2/bot/message/reply", LineSentSchema, { replyToken: fresh.token, messages });
          return sent.sentMessages?.[0]?.id ?? `reply:${reply.replyTo}`;
        } catch (error) {
          // used, expired or refused: the push API reaches the same chat
          const why = error instanceof PlatformError && error.message.includes(LINE_INVALID_REPLY_TOKEN) ? "the reply token is no longer valid" : errorMessage(error);
          this.setup.logger.info(`LINE: reply not sent (${why}); pushing it`);
        }
      }
    }
    const retryKey = crypto.randomUUID();
    try {
      const sent = await this.retrying("push", () => this.api("push", "/v2/bot/message/push", LineSentSchema, { to: reply.chatId, messages }, { [LINE_RETRY_KEY_HEADER]: retryKey }));
      return sent.sentMessages?.[0]?.id ?? `push:${retryKey}`;
    } catch (error) {
      // 409: a retry of a push LINE had accepted (its answer was lost): delivered once
      if (error instanceof PlatformError && error.httpStatus === 409) return `push:${retryKey}`;
      throw error;
    }
  }

  /** The loading animation, which LINE shows in one-to-one chats only (#display-a-loading-indicator). */
  override async typing(chatId: string): Promise<void> {
    if (!chatId.startsWith("U")) return;
    try {
      await this.api("loading animation", "/v2/bot/chat/loading/start", AnyObjectAnswerSchema, { chatId, loadingSeconds: LINE_LOADING_SECONDS });
    } catch (error) {
      this.setup.logger.debug(`LINE: loading animation not shown: ${errorMessage(error)}`);
    }
  }

  /** A message's image, audio or file from the content API (#get-content), by message id. */
  async fetchAttachment(attachment: InboundAttachment, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
    if (!/^\d{1,32}$/.test(attachment.ref)) throw new PrxError("CHANNEL_PLATFORM", "line: not a message id");
    const both = AbortSignal.any([signal, this.stopper.signal]);
    const url = `${this.dataRoot}/v2/bot/message/${attachment.ref}/content`;
    const got = await platformDownload("line", "content download", url, { timeoutMs: ATTACHMENT_FETCH_TIMEOUT_MS, maxBytes, signal: both, headers: { authorization: `Bearer ${this.token}` } });
    // 202: LINE is still preparing a large audio or video file
    if (!got.ok || got.status === 202) throw new PrxError("CHANNEL_PLATFORM", `line: content download: HTTP ${got.status}`);
    return got.bytes;
  }
}
