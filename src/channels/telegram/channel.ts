import { constantTimeEqual } from "../../core/constant-time.ts";
import { errorMessage, PrxError, isPrxError } from "../../core/errors.ts";
import { parseJsonBounded } from "../../core/json/index.ts";
import { Backoff, sleep } from "../../core/supervise/index.ts";
import { ATTACHMENT_FETCH_TIMEOUT_MS, PLATFORM_BACKOFF, TELEGRAM_MAX_MESSAGE_CHARS, TELEGRAM_MAX_PHOTO_BYTES } from "../limits.ts";
import { IMAGE_MAX_BYTES } from "../../media/limits.ts";
import { PlatformError } from "../platform-error.ts";
import { PlatformChannel } from "../base.ts";
import type { ChannelSetup, ForwardedRequest, ForwardedResponse, InboundAttachment, InboundMessage, OnMessage, OutboundAttachment, OutboundReply, ReplyTarget } from "../types.ts";
import { TELEGRAM_DEFAULT_API, TelegramApi } from "./api.ts";
import { toMarkdownV2 } from "./markdown.ts";
import {
  TELEGRAM_SECRET_HEADER,
  TelegramAnyResultSchema,
  TelegramFileSchema,
  TelegramSentSchema,
  TelegramUpdateSchema,
  TelegramUpdatesSchema,
  TelegramUserSchema,
  type TelegramMessage,
  type TelegramUser,
} from "./wire.ts";

/** Telegram's message id is unique per chat: the channel's id is "<chat>:<message>". */
function messageIdOf(message: TelegramMessage): string {
  return `${message.chat.id}:${message.message_id}`;
}

/**
 * A message's photo (its largest size Telegram says fits IMAGE_MAX_BYTES), image or audio document, voice note or
 * audio file, as attachments fetched with getFile when the turn runs.
 */
function attachmentsOf(message: TelegramMessage): InboundAttachment[] {
  const out: InboundAttachment[] = [];
  const sized = (bytes: number | undefined) => (bytes === undefined ? {} : { bytes });
  if (message.photo?.length) {
    const fitting = message.photo.filter((size) => size.file_size === undefined || size.file_size <= IMAGE_MAX_BYTES);
    const best = fitting.at(-1) ?? message.photo.at(-1)!;
    out.push({ kind: "image", ref: best.file_id, ...sized(best.file_size) });
  }
  const document = message.document;
  if (document?.mime_type?.startsWith("image/")) out.push({ kind: "image", ref: document.file_id, ...sized(document.file_size) });
  else if (document?.mime_type?.startsWith("audio/")) out.push({ kind: "audio", ref: document.file_id, ...sized(document.file_size) });
  for (const clip of [message.voice, message.audio]) {
    if (!clip) continue;
    out.push({ kind: "audio", ref: clip.file_id, ...sized(clip.file_size), ...(clip.duration === undefined ? {} : { seconds: clip.duration }) });
  }
  return out;
}

/** A Telegram message -> the inbound shape; undefined for messages with neither text nor media prx reads (stickers). */
export function normalizeTelegram(channel: string, message: TelegramMessage, me: TelegramUser | null): InboundMessage | undefined {
  const attachments = message.text === undefined ? attachmentsOf(message) : [];
  const text = message.text ?? message.caption ?? (attachments.length > 0 ? "" : undefined);
  if (text === undefined || !message.from) return undefined;
  const entities = message.entities ?? message.caption_entities ?? [];
  const kind = message.chat.type === "private" ? "dm" : message.is_topic_message ? "thread" : "group";
  const mentionedByName =
    me?.username !== undefined &&
    entities.some(
      (e) => e.type === "mention" && text.slice(e.offset, e.offset + e.length).toLowerCase() === `@${me.username!.toLowerCase()}`,
    );
  const mentionedById = entities.some((e) => e.type === "text_mention" && e.user?.id === me?.id);
  const repliedToMe = message.reply_to_message?.from?.id !== undefined && message.reply_to_message.from.id === me?.id;
  const display = [message.from.first_name, message.from.last_name].filter(Boolean).join(" ") || message.from.username || String(message.from.id);
  return {
    id: messageIdOf(message),
    channel,
    chatId: String(message.chat.id),
    chatKind: kind,
    threadId: message.is_topic_message && message.message_thread_id !== undefined ? String(message.message_thread_id) : null,
    senderId: String(message.from.id),
    senderDisplay: display.slice(0, 256),
    senderIsBot: message.from.is_bot,
    text,
    replyTo: message.reply_to_message ? `${message.chat.id}:${message.reply_to_message.message_id}` : null,
    mentioned: mentionedByName || mentionedById || repliedToMe,
    timestamp: message.date * 1000,
    ...(attachments.length > 0 ? { attachments } : {}),
  };
}

/**
 * Telegram Bot API: long polling with getUpdates (the offset persisted once each update is stored, so an update is
 * processed once across restarts), or webhook mode through the gateway (secret-token header checked). 409 Conflict,
 * 429 retry_after and network errors back off and retry.
 */
export class TelegramChannel extends PlatformChannel {
  readonly kind = "telegram" as const;
  readonly capabilities = { edit: true, threads: true, maxMessageLength: TELEGRAM_MAX_MESSAGE_CHARS, typing: true, attachments: true };
  private readonly api: TelegramApi;
  private me: TelegramUser | null = null;
  private onMessage: OnMessage | null = null;
  private readonly webhookSecret: string | undefined;

  constructor(setup: ChannelSetup) {
    super(setup);
    const token = this.secret("token_env");
    if (!token) {
      throw new PrxError("CHANNEL_CONFIG", `channel ${setup.name}: no bot token (token_env ${setup.config.token_env ?? "is not set"})`, {
        hint: `set token_env = "TELEGRAM_BOT_TOKEN" in [channels.${setup.name}] and export that variable`,
      });
    }
    this.webhookSecret = this.secret("secret_env");
    if (setup.config.mode === "webhook" && !this.webhookSecret) {
      throw new PrxError("CHANNEL_CONFIG", `channel ${setup.name}: webhook mode needs a secret token (secret_env)`, {
        hint: "set secret_env and pass the same value as secret_token to setWebhook",
      });
    }
    this.api = new TelegramApi(setup.config.api_base_url ?? TELEGRAM_DEFAULT_API, token);
  }

  private getMe(): Promise<TelegramUser> {
    return this.api.call("getMe", {}, TelegramUserSchema, this.limits.requestTimeoutMs, this.stopper.signal);
  }

  /** https://core.telegram.org/bots/api#getme: the bot the token belongs to. */
  async checkCredentials(): Promise<string> {
    const me = await this.getMe();
    return `Telegram bot ${me.username ? `@${me.username}` : me.first_name} (id ${me.id})`;
  }

  async start(onMessage: OnMessage): Promise<void> {
    this.onMessage = onMessage;
    this.me = await this.retrying("getMe", () => this.getMe());
    this.state = { ok: true, detail: `@${this.me.username ?? this.me.id} ${this.setup.config.mode === "webhook" ? "(webhook)" : "polling"}` };
    if (this.setup.config.mode !== "webhook") this.loop = this.poll();
  }

  private async poll(): Promise<void> {
    const backoff = new Backoff(PLATFORM_BACKOFF);
    const timeoutS = this.setup.config.poll_timeout_s;
    while (!this.stopper.signal.aborted) {
      await this.setup.waitForCapacity?.();
      const offset = Number((await this.setup.cursor.get()) ?? "0");
      let updates: unknown[];
      try {
        updates = await this.api.call(
          "getUpdates",
          { offset, timeout: timeoutS, allowed_updates: ["message"] },
          TelegramUpdatesSchema,
          timeoutS * 1000 + this.limits.longPollSlackMs,
          this.stopper.signal,
        );
      } catch (error) {
        if (this.stopper.signal.aborted) return;
        const e = error as PlatformError;
        const wait = e.retryAfterMs ?? backoff.next();
        const why = e.httpStatus === 409 ? "another poller or a webhook holds this bot (409 Conflict)" : errorMessage(error);
        this.state = { ok: false, detail: why };
        this.setup.logger.warn(`getUpdates failed, retrying in ${wait} ms: ${why}`);
        await sleep(wait, this.stopper.signal);
        continue;
      }
      backoff.reset();
      this.state = { ok: true, detail: `@${this.me?.username ?? "bot"} polling` };
      for (const raw of updates) await this.handleUpdate(raw);
    }
  }

  /** Store one update (or skip it: unknown kind, malformed), then move the offset past it. */
  private async handleUpdate(raw: unknown): Promise<void> {
    const parsed = TelegramUpdateSchema.safeParse(raw);
    const updateId = (raw as { update_id?: unknown } | null)?.update_id;
    if (!parsed.success) {
      this.setup.logger.warn("skipped a malformed update", { issue: parsed.error.issues[0]?.message });
      if (typeof updateId === "number") await this.setup.cursor.set(String(updateId + 1));
      return;
    }
    const update = parsed.data;
    const message = update.message ? normalizeTelegram(this.name, update.message, this.me) : undefined;
    if (message) await this.onMessage!(message);
    else this.setup.logger.debug(`skipped update ${update.update_id}: no text message`, { keys: Object.keys(update) });
    await this.setup.cursor.set(String(update.update_id + 1));
  }

  async handleHttp(request: ForwardedRequest): Promise<ForwardedResponse> {
    const given = request.headers[TELEGRAM_SECRET_HEADER] ?? "";
    if (this.setup.config.mode !== "webhook" || !constantTimeEqual(given, this.webhookSecret ?? "")) {
      if (this.setup.config.mode === "webhook") this.refuseRequest(given ? "wrong secret token" : "missing secret token");
      return { status: 401, headers: {}, body: JSON.stringify({ error: "bad secret token" }) };
    }
    let raw: unknown;
    try {
      raw = parseJsonBounded(request.body, "body");
    } catch (error) {
      return { status: 400, headers: {}, body: JSON.stringify({ error: isPrxError(error) ? error.message : "body is not JSON" }) };
    }
    await this.handleUpdate(raw);
    return this.storedAnswer({ status: 200, headers: {}, body: "{}" });
  }

  /** chat_id, message_thread_id and reply_parameters of a message to `target`. */
  private addressed(target: ReplyTarget): Record<string, unknown> {
    const base: Record<string, unknown> = { chat_id: target.chatId };
    if (target.threadId !== null) base.message_thread_id = Number(target.threadId);
    const replied = target.replyTo?.split(":").at(-1);
    if (replied) base.reply_parameters = { message_id: Number(replied), allow_sending_without_reply: true };
    return base;
  }

  /**
   * An image as sendPhoto (https://core.telegram.org/bots/api#sendphoto: at most 10 MB), any other file, or an image
   * Telegram refuses as a photo, as sendDocument (https://core.telegram.org/bots/api#senddocument).
   */
  protected override async upload(target: ReplyTarget, attachment: OutboundAttachment): Promise<string> {
    const send = (method: "sendPhoto" | "sendDocument", field: "photo" | "document") =>
      this.api.call(method, this.addressed(target), TelegramSentSchema, this.limits.requestTimeoutMs, this.stopper.signal, { field, ...attachment });
    if (attachment.kind === "image" && attachment.bytes.byteLength <= TELEGRAM_MAX_PHOTO_BYTES) {
      try {
        return String((await send("sendPhoto", "photo")).message_id);
      } catch (error) {
        // PHOTO_INVALID_DIMENSIONS and the like: the same file goes as a document
        if (!(error instanceof PlatformError) || error.httpStatus !== 400) throw error;
      }
    }
    return String((await send("sendDocument", "document")).message_id);
  }

  async send(reply: OutboundReply): Promise<string> {
    const base = this.addressed(reply);
    const attempt = (params: Record<string, unknown>) =>
      this.retrying("sendMessage", () => this.api.call("sendMessage", params, TelegramSentSchema, this.limits.requestTimeoutMs, this.stopper.signal));
    try {
      return String((await attempt({ ...base, text: toMarkdownV2(reply.text), parse_mode: "MarkdownV2" })).message_id);
    } catch (error) {
      if (!(error instanceof PlatformError) || error.httpStatus !== 400 || !/parse entities/i.test(error.message)) throw error;
      this.setup.logger.info("Telegram refused the MarkdownV2 text; sending it as plain text");
      return String((await attempt({ ...base, text: reply.text })).message_id);
    }
  }

  /** getFile for the file's path, then its bytes from the file endpoint (https://core.telegram.org/bots/api#getfile). */
  async fetchAttachment(attachment: InboundAttachment, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
    const both = AbortSignal.any([signal, this.stopper.signal]);
    const file = await this.api.call("getFile", { file_id: attachment.ref }, TelegramFileSchema, this.limits.requestTimeoutMs, both);
    if (!file.file_path) throw new PrxError("CHANNEL_PLATFORM", "getFile answered no file_path (Telegram lets bots download files up to 20 MB)");
    if (file.file_size !== undefined && file.file_size > maxBytes) {
      throw new PrxError("PAYLOAD_TOO_LARGE", `the file is ${file.file_size} bytes, over the limit of ${maxBytes}`);
    }
    return this.api.download(file.file_path, maxBytes, ATTACHMENT_FETCH_TIMEOUT_MS, both);
  }

  override async typing(chatId: string, threadId: string | null): Promise<void> {
    const params: Record<string, unknown> = { chat_id: chatId, action: "typing" };
    if (threadId !== null) params.message_thread_id = Number(threadId);
    await this.api.call("sendChatAction", params, TelegramAnyResultSchema, this.limits.requestTimeoutMs, this.stopper.signal);
  }
}
