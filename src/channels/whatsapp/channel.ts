import type { z } from "zod";
import { constantTimeEqual } from "../../core/constant-time.ts";
import { errorMessage, PrxError } from "../../core/errors.ts";
import { PlatformChannel } from "../base.ts";
import { ATTACHMENT_FETCH_TIMEOUT_MS, CHANNEL_MAX_ATTACHMENTS, WHATSAPP_IMAGE_TYPES, WHATSAPP_MAX_IMAGE_BYTES, WHATSAPP_MAX_MESSAGE_CHARS, WHATSAPP_SERVICE_WINDOW_MS } from "../limits.ts";
import { platformDownload } from "../platform-download.ts";
import { AnyObjectAnswerSchema, PlatformCodeError, platformJson } from "../platform-json.ts";
import { RememberedChats } from "../remembered-chats.ts";
import { verifyHubSignature } from "../signature.ts";
import type { ChannelSetup, ForwardedRequest, ForwardedResponse, InboundAttachment, InboundMessage, OnMessage, OutboundAttachment, OutboundReply, ReplyTarget } from "../types.ts";
import {
  GRAPH_OUTSIDE_WINDOW,
  GRAPH_RATE_LIMITED,
  GraphErrorSchema,
  WHATSAPP_SIGNATURE_HEADER,
  WhatsAppChangeValueSchema,
  WhatsAppMediaSchema,
  WhatsAppMessageSchema,
  WhatsAppNotificationSchema,
  WhatsAppPhoneNumberSchema,
  WhatsAppSentSchema,
  WhatsAppUploadedSchema,
  type WhatsAppMessage,
} from "./wire.ts";

export const WHATSAPP_DEFAULT_API = "https://graph.facebook.com";
export const WHATSAPP_DEFAULT_VERSION = "v21.0";
/** Where Meta serves media files (the URL a media lookup answers, fetched with the same bearer token). */
const WHATSAPP_MEDIA_HOSTS = ["lookaside.fbsbx.com"];

/** A message's image, voice note / audio, or image or audio document, fetched by media id when the turn runs. */
function attachmentsOf(message: WhatsAppMessage): InboundAttachment[] {
  const out: InboundAttachment[] = [];
  if (message.type === "image" && message.image) out.push({ kind: "image", ref: message.image.id });
  if (message.type === "audio" && message.audio) out.push({ kind: "audio", ref: message.audio.id });
  const doc = message.type === "document" ? message.document : undefined;
  if (doc?.mime_type?.startsWith("image/")) out.push({ kind: "image", ref: doc.id });
  else if (doc?.mime_type?.startsWith("audio/")) out.push({ kind: "audio", ref: doc.id });
  return out.slice(0, CHANNEL_MAX_ATTACHMENTS);
}

/** The text a message carries: its body, a caption, the title of a chosen button or list row, a document's name. */
function textOf(message: WhatsAppMessage): string | undefined {
  switch (message.type) {
    case "text":
      return message.text?.body;
    case "image":
      return message.image?.caption ?? "";
    case "audio":
      return "";
    case "document": {
      const doc = message.document;
      if (!doc) return undefined;
      const media = doc.mime_type?.startsWith("image/") || doc.mime_type?.startsWith("audio/");
      return doc.caption ?? (media ? "" : `[a document was sent: ${doc.filename ?? doc.mime_type ?? "file"}; only images and audio are read]`);
    }
    case "interactive":
      return message.interactive?.button_reply?.title ?? message.interactive?.list_reply?.title;
    case "button":
      return message.button?.text;
    default:
      return undefined;
  }
}

/** A Cloud API message -> the inbound shape (undefined for types prx does not read: stickers, locations, reactions...). */
export function normalizeWhatsApp(channel: string, message: WhatsAppMessage, names: Map<string, string>): InboundMessage | undefined {
  const text = textOf(message);
  if (text === undefined) return undefined;
  const attachments = attachmentsOf(message);
  return {
    id: message.id,
    channel,
    // the Cloud API is one-to-one: the chat is the user's WhatsApp id
    chatId: message.from,
    chatKind: "dm",
    threadId: null,
    senderId: message.from,
    senderDisplay: (names.get(message.from) ?? message.from).slice(0, 256),
    senderIsBot: false,
    text,
    replyTo: message.context?.id ?? null,
    mentioned: true,
    timestamp: Number(message.timestamp) * 1000,
    ...(attachments.length > 0 ? { attachments } : {}),
  };
}

function answer(status: number, body: unknown, contentType = "application/json; charset=utf-8"): ForwardedResponse {
  return { status, headers: { "content-type": contentType }, body: typeof body === "string" ? body : JSON.stringify(body) };
}

/**
 * WhatsApp Business Cloud API: notifications arrive through the gateway (`/channels/<name>/webhook`: the GET
 * verification handshake with the verify token, POSTs signed with X-Hub-Signature-256 by the app secret); replies,
 * read receipts and media lookups go to the Graph API with the access token. A reply more than 24 hours after the
 * user's last message is sent as the configured template, or fails saying why.
 */
export class WhatsAppChannel extends PlatformChannel {
  readonly kind = "whatsapp" as const;
  readonly capabilities = { edit: false, threads: false, maxMessageLength: WHATSAPP_MAX_MESSAGE_CHARS, typing: true, attachments: true };
  private readonly token: string;
  private readonly appSecret: string;
  private readonly verifyToken: string;
  private readonly phoneNumberId: string;
  private readonly root: string;
  private onMessage: OnMessage | null = null;
  /** Per chat: when the user last wrote (epoch ms) and the message to mark read when its turn runs. */
  private readonly lastInbound = new RememberedChats<{ at: number; id: string; read: boolean }>();

  constructor(setup: ChannelSetup) {
    super(setup);
    this.token = this.requireSecret("token_env", "WhatsApp access token", "WHATSAPP_TOKEN");
    this.appSecret = this.requireSecret("secret_env", "WhatsApp app secret (signs webhook POSTs)", "WHATSAPP_APP_SECRET");
    this.verifyToken = this.requireSecret("verify_token_env", "WhatsApp webhook verify token", "WHATSAPP_VERIFY_TOKEN");
    if (!setup.config.phone_number_id) {
      throw new PrxError("CHANNEL_CONFIG", `channel ${this.name}: WhatsApp needs the business phone number's id (phone_number_id)`, {
        hint: `set phone_number_id = "<id from the WhatsApp Manager's API setup page>" in [channels.${this.name}]`,
      });
    }
    this.phoneNumberId = setup.config.phone_number_id;
    const base = (setup.config.api_base_url ?? WHATSAPP_DEFAULT_API).replace(/\/$/, "");
    this.root = `${base}/${setup.config.api_version ?? WHATSAPP_DEFAULT_VERSION}`;
  }

  private graph<T>(what: string, path: string, schema: z.ZodType<T>, body?: unknown, signal = this.stopper.signal): Promise<T> {
    return platformJson({
      platform: "whatsapp",
      what,
      url: `${this.root}/${path}`,
      headers: { authorization: `Bearer ${this.token}` },
      body,
      schema,
      bounds: { timeoutMs: this.limits.requestTimeoutMs, signal },
      explain: (_status, json) => {
        const error = GraphErrorSchema.safeParse(json);
        if (!error.success) return undefined;
        const code = error.data.error.code;
        return { message: `${error.data.error.message}${code === undefined ? "" : ` (code ${code})`}`, retryable: code !== undefined && GRAPH_RATE_LIMITED.has(code), ...(code === undefined ? {} : { code }) };
      },
    });
  }

  private phoneNumber() {
    return this.graph("phone number lookup", this.phoneNumberId, WhatsAppPhoneNumberSchema);
  }

  /** GET /{version}/{phone_number_id} (https://developers.facebook.com/docs/graph-api/reference/whats-app-business-phone-number/): the number, with the token. */
  async checkCredentials(): Promise<string> {
    const phone = await this.phoneNumber();
    return `WhatsApp number ${phone.display_phone_number ?? phone.id}${phone.verified_name ? ` (${phone.verified_name})` : ""}, phone_number_id ${phone.id}`;
  }

  async start(onMessage: OnMessage): Promise<void> {
    this.onMessage = onMessage;
    const phone = await this.retrying("phone number lookup", () => this.phoneNumber());
    this.state = { ok: true, detail: `${phone.display_phone_number ?? phone.id} through the gateway's webhook` };
  }

  async handleHttp(request: ForwardedRequest): Promise<ForwardedResponse> {
    if (request.method === "GET") return this.verification(request.query ?? "");
    if (request.method !== "POST") return answer(405, { error: "use GET (verification) or POST (notifications)" });
    const admitted = this.admitSigned(request, verifyHubSignature(this.appSecret, request.headers[WHATSAPP_SIGNATURE_HEADER], request.body));
    if ("refused" in admitted) return admitted.refused;
    const notification = WhatsAppNotificationSchema.safeParse(admitted.json);
    if (!notification.success || notification.data.object !== "whatsapp_business_account") {
      this.setup.logger.warn("WhatsApp: skipped a notification that is not a whatsapp_business_account one");
      return answer(200, {});
    }
    for (const entry of notification.data.entry) {
      for (const change of entry.changes) {
        if (change.field !== "messages") continue;
        const value = WhatsAppChangeValueSchema.safeParse(change.value);
        if (!value.success) {
          this.setup.logger.warn("WhatsApp: skipped a malformed messages change");
          continue;
        }
        // another number of the same business account (its own channel answers it); `statuses` (sent, delivered,
        // read, failed of our replies) are not read at all
        if (value.data.metadata && value.data.metadata.phone_number_id !== this.phoneNumberId) continue;
        const names = new Map((value.data.contacts ?? []).flatMap((c) => (c.profile ? [[c.wa_id, c.profile.name] as const] : [])));
        for (const item of value.data.messages ?? []) {
          const parsed = WhatsAppMessageSchema.safeParse(item);
          if (!parsed.success) {
            this.setup.logger.warn("WhatsApp: skipped a malformed message");
            continue;
          }
          const message = normalizeWhatsApp(this.name, parsed.data, names);
          if (!message) {
            this.setup.logger.debug(`WhatsApp: skipped a ${parsed.data.type} message`);
            continue;
          }
          const last = this.lastInbound.get(message.chatId);
          if (!last || last.at <= message.timestamp) this.lastInbound.set(message.chatId, { at: message.timestamp, id: message.id, read: false });
          // stored before the 200: a notification Meta has to redeliver is answered once by its message id
          await this.onMessage!(message);
        }
      }
    }
    return this.storedAnswer(answer(200, {}));
  }

  /** The subscription handshake: hub.mode=subscribe and our verify token -> hub.challenge as the body, else 403. */
  private verification(query: string): ForwardedResponse {
    const params = new URLSearchParams(query);
    const token = params.get("hub.verify_token") ?? "";
    if (params.get("hub.mode") !== "subscribe" || !constantTimeEqual(token, this.verifyToken)) {
      this.refuseRequest("webhook verification with a wrong verify token");
      return answer(403, { error: "verification refused" });
    }
    this.setup.logger.info("WhatsApp: webhook subscription verified");
    return answer(200, params.get("hub.challenge") ?? "", "text/plain; charset=utf-8");
  }

  async send(reply: OutboundReply): Promise<string> {
    const last = this.lastInbound.get(reply.chatId);
    if (last && Date.now() - last.at > WHATSAPP_SERVICE_WINDOW_MS) return this.sendTemplate(reply.chatId, "the user last wrote over 24 hours ago");
    const body: Record<string, unknown> = { messaging_product: "whatsapp", recipient_type: "individual", to: reply.chatId, type: "text", text: { body: reply.text, preview_url: false } };
    if (reply.replyTo) body.context = { message_id: reply.replyTo };
    try {
      const sent = await this.retrying("send", () => this.graph("send", `${this.phoneNumberId}/messages`, WhatsAppSentSchema, body));
      return sent.messages[0]!.id;
    } catch (error) {
      if (error instanceof PlatformCodeError && error.platformCode === GRAPH_OUTSIDE_WINDOW) return this.sendTemplate(reply.chatId, "WhatsApp says the 24-hour window is closed");
      throw error;
    }
  }

  /**
   * The file uploaded as media (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media#upload-media),
   * then sent by its id: a JPEG or PNG of at most 5 MB as an image, anything else as a document with its file name
   * (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media#supported-media-types).
   */
  protected override async upload(target: ReplyTarget, attachment: OutboundAttachment): Promise<string> {
    const form = new FormData();
    form.append("messaging_product", "whatsapp");
    form.append("type", attachment.mime);
    form.append("file", new Blob([attachment.bytes], { type: attachment.mime }), attachment.name);
    const media = await this.graph("media upload", `${this.phoneNumberId}/media`, WhatsAppUploadedSchema, form);
    const image = attachment.kind === "image" && WHATSAPP_IMAGE_TYPES.includes(attachment.mime) && attachment.bytes.byteLength <= WHATSAPP_MAX_IMAGE_BYTES;
    const body: Record<string, unknown> = image
      ? { messaging_product: "whatsapp", recipient_type: "individual", to: target.chatId, type: "image", image: { id: media.id } }
      : { messaging_product: "whatsapp", recipient_type: "individual", to: target.chatId, type: "document", document: { id: media.id, filename: attachment.name } };
    if (target.replyTo) body.context = { message_id: target.replyTo };
    return (await this.graph("media send", `${this.phoneNumberId}/messages`, WhatsAppSentSchema, body)).messages[0]!.id;
  }

  /** Outside the 24-hour window only an approved template may start the conversation again. */
  private async sendTemplate(to: string, why: string): Promise<string> {
    const template = this.setup.config.template;
    if (!template) {
      throw new PrxError("CHANNEL_PLATFORM", `whatsapp: reply to ${to} not sent: ${why}, and WhatsApp allows only a template then`, {
        hint: `set template = "<approved template name>" (and template_language) in [channels.${this.name}] to reopen the conversation with it`,
      });
    }
    const body = { messaging_product: "whatsapp", to, type: "template", template: { name: template, language: { code: this.setup.config.template_language ?? "en_US" } } };
    const sent = await this.retrying("template send", () => this.graph("template send", `${this.phoneNumberId}/messages`, WhatsAppSentSchema, body));
    this.setup.logger.info(`WhatsApp: sent template ${template} to ${to} (${why})`);
    return sent.messages[0]!.id;
  }

  /** While a turn runs: the user's message is marked read once, with the typing indicator the read receipt can carry. */
  override async typing(chatId: string): Promise<void> {
    const last = this.lastInbound.get(chatId);
    if (!last || last.read) return;
    last.read = true;
    const body = { messaging_product: "whatsapp", status: "read", message_id: last.id, typing_indicator: { type: "text" } };
    try {
      await this.graph("read receipt", `${this.phoneNumberId}/messages`, AnyObjectAnswerSchema, body);
    } catch (error) {
      this.setup.logger.debug(`WhatsApp: read receipt not sent: ${errorMessage(error)}`);
    }
  }

  /** Media by id: its short-lived URL from the Graph API, then the bytes from that URL with the same token. */
  async fetchAttachment(attachment: InboundAttachment, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
    if (!/^\d{1,64}$/.test(attachment.ref)) throw new PrxError("CHANNEL_PLATFORM", "whatsapp: not a media id");
    const both = AbortSignal.any([signal, this.stopper.signal]);
    const media = await this.graph("media lookup", attachment.ref, WhatsAppMediaSchema, undefined, both);
    const url = new URL(media.url);
    if (!WHATSAPP_MEDIA_HOSTS.includes(url.host) && url.host !== new URL(this.root).host) {
      throw new PrxError("CHANNEL_PLATFORM", `whatsapp: a media URL on ${url.host} is not Meta's`);
    }
    const headers = { authorization: `Bearer ${this.token}` };
    const got = await platformDownload("whatsapp", "media download", url.href, { timeoutMs: ATTACHMENT_FETCH_TIMEOUT_MS, maxBytes, signal: both, headers });
    if (!got.ok) throw new PrxError("CHANNEL_PLATFORM", `whatsapp: media download: HTTP ${got.status}`);
    return got.bytes;
  }
}
