import type { z } from "zod";
import { constantTimeEqual } from "../../core/constant-time.ts";
import { isPrxError, PrxError } from "../../core/errors.ts";
import { parseJsonBounded } from "../../core/json/index.ts";
import { jsonAnswer, PlatformChannel } from "../base.ts";
import { ATTACHMENT_FETCH_TIMEOUT_MS, FEISHU_MAX_MESSAGE_CHARS } from "../limits.ts";
import { platformDownload } from "../platform-download.ts";
import { PlatformCodeError } from "../platform-json.ts";
import { RememberedChats } from "../remembered-chats.ts";
import type { SignatureCheck } from "../signature.ts";
import type { ChannelSetup, ForwardedRequest, ForwardedResponse, InboundAttachment, OnMessage, OutboundReply } from "../types.ts";
import { feishuJson } from "./api.ts";
import { decryptLarkEvent, verifyLarkSignature } from "./crypto.ts";
import { normalizeFeishu, parseResourceRef } from "./normalize.ts";
import { TenantTokens } from "./token.ts";
import {
  BOT_INFO_PATH,
  BotInfoSchema,
  EncryptedSchema,
  EventEnvelopeSchema,
  FEISHU_DEFAULT_API,
  FEISHU_MESSAGE_WITHDRAWN,
  FEISHU_TOKEN_INVALID,
  LARK_NONCE_HEADER,
  LARK_SIGNATURE_HEADER,
  LARK_TIMESTAMP_HEADER,
  MESSAGES_PATH,
  MessageEventSchema,
  SentSchema,
  UrlVerificationSchema,
} from "./wire.ts";

/** `key` of a JSON object (undefined for anything else), as an object schema reads it. */
function fieldOf(body: unknown, key: string): unknown {
  return typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)[key] : undefined;
}

/**
 * Feishu / Lark (Open Platform event subscription v2.0): events are POSTed to the gateway's
 * `/channels/<name>/webhook` (the request URL). With an Encrypt Key every event is signed (X-Lark-Signature, checked
 * before anything else, in the replay window) and encrypted; the URL verification challenge is answered after its
 * verification token is checked. Replies go to the message (its thread, when it is in one) with a tenant access token.
 */
export class FeishuChannel extends PlatformChannel {
  readonly kind = "feishu" as const;
  readonly capabilities = { edit: false, threads: true, maxMessageLength: FEISHU_MAX_MESSAGE_CHARS, typing: false };
  private readonly base: string;
  private readonly appId: string;
  private readonly verificationToken: string;
  private readonly encryptKey: string | undefined;
  private readonly tokens: TenantTokens;
  private botOpenId: string | null = null;
  /** Ids of the messages this process sent: a reply to one of them addresses the bot as a mention does. */
  private readonly sentIds = new RememberedChats<true>();
  private onMessage: OnMessage | null = null;

  constructor(setup: ChannelSetup) {
    super(setup);
    if (!setup.config.app_id) {
      throw new PrxError("CHANNEL_CONFIG", `channel ${this.name}: Feishu needs the app's App ID (app_id)`, {
        hint: `set app_id = "cli_..." (Credentials & Basic Info in the developer console) in [channels.${this.name}]`,
      });
    }
    this.appId = setup.config.app_id;
    const appSecret = this.requireSecret("secret_env", "Feishu app secret", "FEISHU_APP_SECRET");
    this.verificationToken = this.requireSecret("verify_token_env", "Feishu verification token (Events & Callbacks > Encryption strategy)", "FEISHU_VERIFICATION_TOKEN");
    this.encryptKey = this.secret("encrypt_key_env");
    this.base = (setup.config.api_base_url ?? FEISHU_DEFAULT_API).replace(/\/$/, "");
    this.tokens = new TenantTokens({ base: this.base, appId: this.appId, appSecret, bounds: () => this.bounds() });
  }

  private bounds(signal: AbortSignal = this.stopper.signal) {
    return { timeoutMs: this.limits.requestTimeoutMs, signal };
  }

  /** An authenticated call; a token the platform says is no longer valid is forgotten, so the retry fetches another. */
  private async api<T>(what: string, path: string, schema: z.ZodType<T>, body?: unknown): Promise<T> {
    const token = await this.tokens.get();
    try {
      return await feishuJson({ what, url: `${this.base}${path}`, token, body, schema, bounds: this.bounds() });
    } catch (error) {
      if (error instanceof PlatformCodeError && error.platformCode === FEISHU_TOKEN_INVALID) this.tokens.forget(token);
      throw error;
    }
  }

  private botInfo() {
    return this.api("bot info (is the bot capability enabled?)", BOT_INFO_PATH, BotInfoSchema);
  }

  /** The app's credentials against the token endpoint, and the bot they belong to (`prx channel doctor`). */
  async checkCredentials(): Promise<string> {
    const info = await this.botInfo();
    return `app ${this.appId}: credentials accepted; bot ${info.bot.app_name ?? "(unnamed)"} (${info.bot.open_id}) at ${this.base}`;
  }

  async start(onMessage: OnMessage): Promise<void> {
    this.onMessage = onMessage;
    // the credentials are checked now: a wrong secret fails the start, not the first reply; the bot's open_id tells
    // its own @-mentions apart
    const info = await this.retrying("bot info", () => this.botInfo());
    this.botOpenId = info.bot.open_id;
    this.state = { ok: true, detail: `${info.bot.app_name ?? "bot"} (${info.bot.open_id}) through the gateway's webhook` };
  }

  private refused(status: number, reason: string): ForwardedResponse {
    this.refuseRequest(reason);
    return jsonAnswer(status, { error: reason });
  }

  async handleHttp(request: ForwardedRequest): Promise<ForwardedResponse> {
    if (request.method !== "POST") return jsonAnswer(405, { error: "use POST" });
    const signed = this.encryptKey !== undefined && request.headers[LARK_SIGNATURE_HEADER] !== undefined;
    const check: SignatureCheck = signed
      ? verifyLarkSignature(
          this.encryptKey!,
          { timestamp: request.headers[LARK_TIMESTAMP_HEADER], nonce: request.headers[LARK_NONCE_HEADER], signature: request.headers[LARK_SIGNATURE_HEADER] },
          request.body,
          Date.now(),
        )
      : { ok: true };
    const admitted = this.admitSigned(request, check);
    if ("refused" in admitted) return admitted.refused;
    let body = admitted.json;
    // a schema that refuses builds its error (~0.2 ms with a channel process's reluctant JIT): the two checks every
    // event would fail are made only for a body with their key
    const encrypted = fieldOf(body, "encrypt") !== undefined ? EncryptedSchema.safeParse(body) : null;
    if (encrypted?.success) {
      if (this.encryptKey === undefined) return jsonAnswer(400, { error: "an encrypted event, but no Encrypt Key is configured (encrypt_key_env)" });
      const plain = decryptLarkEvent(this.encryptKey, encrypted.data.encrypt);
      if (plain === undefined) return this.refused(401, "the event does not decrypt with the Encrypt Key");
      try {
        body = parseJsonBounded(plain, "event");
      } catch (error) {
        return jsonAnswer(400, { error: isPrxError(error) ? error.message : "the decrypted event is not JSON" });
      }
    } else if (this.encryptKey !== undefined) {
      return this.refused(401, "a plain event, but an Encrypt Key is configured: the platform encrypts every event");
    }
    // the request URL check is the one request the platform does not sign: its verification token stands for it
    const verification = fieldOf(body, "type") === "url_verification" ? UrlVerificationSchema.safeParse(body) : null;
    if (verification?.success) {
      if (!constantTimeEqual(verification.data.token ?? "", this.verificationToken)) return this.refused(403, "URL verification with a wrong verification token");
      this.setup.logger.info("Feishu: request URL verified");
      return jsonAnswer(200, { challenge: verification.data.challenge });
    }
    if (this.encryptKey !== undefined && !signed) return this.refused(401, "missing X-Lark-Signature");
    const envelope = EventEnvelopeSchema.safeParse(body);
    if (!envelope.success) return jsonAnswer(400, { error: "not a v2.0 event" });
    // a signed event is the platform's already; the token it carries must still be this app's
    const given = envelope.data.header.token;
    if ((given !== undefined || !signed) && !constantTimeEqual(given ?? "", this.verificationToken)) return this.refused(401, "event with a wrong verification token");
    if (envelope.data.header.event_type !== "im.message.receive_v1") {
      this.setup.logger.debug(`Feishu: skipped a ${envelope.data.header.event_type} event`);
      return jsonAnswer(200, {});
    }
    const event = MessageEventSchema.safeParse(envelope.data.event);
    if (!event.success) {
      this.setup.logger.warn("Feishu: skipped a malformed im.message.receive_v1 event");
      return jsonAnswer(200, {});
    }
    const message = normalizeFeishu(this.name, event.data, this.botOpenId);
    if (!message) {
      this.setup.logger.debug(`Feishu: skipped a ${event.data.message.message_type} message`);
      return jsonAnswer(200, {});
    }
    if (message.replyTo && this.sentIds.get(message.replyTo)) message.mentioned = true;
    // an event the platform redelivers (same event and message id) is answered once
    return this.acceptForwarded(this.onMessage!, message);
  }

  /**
   * In reply to the message (which keeps a topic's replies in it), else to the thread's root, else a new message in
   * the chat; a reply to a message withdrawn meanwhile goes to the chat.
   */
  async send(reply: OutboundReply): Promise<string> {
    const content = JSON.stringify({ text: reply.text });
    const target = reply.replyTo ?? reply.threadId;
    if (target) {
      try {
        const sent = await this.retrying("reply", () => this.api("reply", `${MESSAGES_PATH}/${encodeURIComponent(target)}/reply`, SentSchema, { msg_type: "text", content }));
        return this.sentId(sent.data.message_id);
      } catch (error) {
        if (!(error instanceof PlatformCodeError && error.platformCode === FEISHU_MESSAGE_WITHDRAWN)) throw error;
        this.setup.logger.info(`Feishu: ${target} was withdrawn; the reply goes to its chat`);
      }
    }
    const body = { receive_id: reply.chatId, msg_type: "text", content };
    const sent = await this.retrying("send", () => this.api("send", `${MESSAGES_PATH}?receive_id_type=chat_id`, SentSchema, body));
    return this.sentId(sent.data.message_id);
  }

  private sentId(id: string): string {
    this.sentIds.set(id, true);
    return id;
  }

  /** An image, audio clip or file of a message, by its resource key, with the tenant token. */
  async fetchAttachment(attachment: InboundAttachment, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
    const ref = parseResourceRef(attachment.ref);
    if (!ref) throw new PrxError("CHANNEL_PLATFORM", "feishu: not a message resource");
    const url = `${this.base}${MESSAGES_PATH}/${ref.messageId}/resources/${ref.key}?type=${ref.type}`;
    const headers = { authorization: `Bearer ${await this.tokens.get()}` };
    const both = AbortSignal.any([signal, this.stopper.signal]);
    const got = await platformDownload("feishu", "message resource", url, { timeoutMs: ATTACHMENT_FETCH_TIMEOUT_MS, maxBytes, signal: both, headers });
    if (!got.ok) throw new PrxError("CHANNEL_PLATFORM", `feishu: message resource: HTTP ${got.status} (is the im:resource scope granted?)`);
    return got.bytes;
  }
}
