import { PrxError } from "../../core/errors.ts";
import { parseJsonBounded } from "../../core/json/index.ts";
import { jsonAnswer, PlatformChannel, refuseOversized } from "../base.ts";
import { ATTACHMENT_FETCH_TIMEOUT_MS, CHANNEL_MAX_ATTACHMENTS, GOOGLE_CHAT_MAX_MESSAGE_CHARS } from "../limits.ts";
import { platformDownload } from "../platform-download.ts";
import { platformJson } from "../platform-json.ts";
import type { ChannelSetup, ForwardedRequest, ForwardedResponse, InboundAttachment, InboundMessage, OnMessage, OutboundReply } from "../types.ts";
import { ChatTokenVerifier, type ChatAudience } from "./jwt.ts";
import { ServiceAccountTokens } from "./token.ts";
import {
  GOOGLE_CHAT_API,
  GOOGLE_CHAT_CERTS_URL,
  GOOGLE_CHAT_ISSUER,
  GOOGLE_OIDC_CERTS_URL,
  GOOGLE_OIDC_ISSUERS,
  GOOGLE_TOKEN_URL,
  GoogleApiErrorSchema,
  GoogleChatCreatedSchema,
  GoogleChatEventSchema,
  ServiceAccountKeySchema,
  SPACE_NAME,
  type GoogleChatEvent,
  type GoogleChatMessage,
} from "./wire.ts";

/** Uploaded images and audio of a message, fetched through the media API by resource name when the turn runs. */
function attachmentsOf(message: GoogleChatMessage): InboundAttachment[] {
  const out: InboundAttachment[] = [];
  for (const a of message.attachment ?? []) {
    const ref = a.attachmentDataRef?.resourceName;
    const kind = a.contentType?.startsWith("image/") ? "image" : a.contentType?.startsWith("audio/") ? "audio" : null;
    if (ref && kind) out.push({ kind, ref });
  }
  return out.slice(0, CHANNEL_MAX_ATTACHMENTS);
}

/**
 * A MESSAGE event (or an ADDED_TO_SPACE that came with one: the app was added by @-mentioning it) -> the inbound
 * shape. In a space the reply goes to the message's thread; the app's own mention is left out (argumentText).
 */
export function normalizeGoogleChat(channel: string, event: GoogleChatEvent): InboundMessage | undefined {
  const message = event.message;
  if ((event.type !== "MESSAGE" && event.type !== "ADDED_TO_SPACE") || !message) return undefined;
  const space = message.space ?? event.space;
  if (!space) return undefined;
  const dm = space.spaceType === "DIRECT_MESSAGE" || space.type === "DM" || space.singleUserBotDm === true;
  const appMentioned = (message.annotations ?? []).some((a) => a.type === "USER_MENTION" && a.userMention?.user.type === "BOT");
  const attachments = attachmentsOf(message);
  const text = (appMentioned || message.slashCommand ? (message.argumentText ?? message.text) : message.text) ?? "";
  return {
    id: message.name,
    channel,
    chatId: space.name,
    chatKind: dm ? "dm" : "group",
    threadId: dm ? null : (message.thread?.name ?? null),
    senderId: message.sender.name,
    senderDisplay: (message.sender.displayName ?? message.sender.name).slice(0, 256),
    senderIsBot: message.sender.type === "BOT",
    text: text.trim(),
    replyTo: message.name,
    mentioned: dm || appMentioned || message.slashCommand !== undefined,
    timestamp: (message.createTime && Date.parse(message.createTime)) || (event.eventTime && Date.parse(event.eventTime)) || Date.now(),
    ...(attachments.length > 0 ? { attachments } : {}),
  };
}

/**
 * Google Chat as an HTTP endpoint app: interaction events POSTed to the gateway's `/channels/<name>/webhook` are let
 * in only with Google's bearer token for the configured audience (jwt.ts); replies are created with the Chat API
 * as the app, with a service account's token (token.ts).
 */
export class GoogleChatChannel extends PlatformChannel {
  readonly kind = "googlechat" as const;
  readonly capabilities = { edit: true, threads: true, maxMessageLength: GOOGLE_CHAT_MAX_MESSAGE_CHARS, typing: false };
  private readonly verifier: ChatTokenVerifier;
  private readonly tokens: ServiceAccountTokens;
  private readonly root: string;
  private onMessage: OnMessage | null = null;

  constructor(setup: ChannelSetup) {
    super(setup);
    const { project_number: project, endpoint_url: endpoint } = setup.config;
    if ((project === undefined) === (endpoint === undefined)) {
      throw new PrxError("CHANNEL_CONFIG", `channel ${this.name}: Google Chat needs exactly one authentication audience: project_number or endpoint_url`, {
        hint: `set project_number = "<the Cloud project's number>" (or endpoint_url = "https://<host>/channels/${this.name}/webhook", as chosen in the Chat API's configuration) in [channels.${this.name}]`,
      });
    }
    const raw = this.requireSecret("secret_env", "Google Chat service account key (its JSON)", "GOOGLE_CHAT_SERVICE_ACCOUNT");
    let key;
    try {
      key = ServiceAccountKeySchema.parse(JSON.parse(raw));
    } catch {
      throw new PrxError("CHANNEL_CONFIG", `channel ${this.name}: the variable secret_env names does not hold a service account key (JSON with client_email and private_key)`, {
        hint: "create a key for the app's service account (IAM > Service accounts > Keys > Add key > JSON) and put the whole file's text in that variable",
      });
    }
    const audience: ChatAudience = project
      ? { issuers: [GOOGLE_CHAT_ISSUER], audience: project, certsUrl: setup.config.certs_url ?? GOOGLE_CHAT_CERTS_URL }
      : { issuers: GOOGLE_OIDC_ISSUERS, audience: endpoint!, email: GOOGLE_CHAT_ISSUER, certsUrl: setup.config.certs_url ?? GOOGLE_OIDC_CERTS_URL };
    const bounds = { timeoutMs: this.limits.requestTimeoutMs, signal: this.stopper.signal };
    this.verifier = new ChatTokenVerifier({ ...audience, ...bounds });
    this.tokens = new ServiceAccountTokens({ key, url: setup.config.token_url ?? key.token_uri ?? GOOGLE_TOKEN_URL, ...bounds });
    this.root = (setup.config.api_base_url ?? GOOGLE_CHAT_API).replace(/\/$/, "");
  }

  /** The service account gets a token and Google's certificates are read (start and `prx channel doctor`). */
  async checkCredentials(): Promise<string> {
    await this.tokens.get();
    const certs = await this.verifier.refresh();
    return `Google Chat app (service account token; ${certs} signing certificates)`;
  }

  async start(onMessage: OnMessage): Promise<void> {
    this.onMessage = onMessage;
    // the credentials are checked once now: a wrong key fails the start, not the first reply
    const detail = await this.retrying("credentials", () => this.checkCredentials());
    this.state = { ok: true, detail: `${detail} through the gateway's webhook` };
  }

  async handleHttp(request: ForwardedRequest): Promise<ForwardedResponse> {
    if (request.method !== "POST") return jsonAnswer(405, { error: "use POST" });
    const oversized = refuseOversized(request);
    if (oversized) return oversized;
    const check = await this.verifier.verify(request.headers.authorization);
    if (!check.ok) {
      this.refuseRequest(check.reason);
      return jsonAnswer(401, { error: `unauthorized: ${check.reason}` });
    }
    let raw: unknown;
    try {
      raw = parseJsonBounded(request.body, "body");
    } catch {
      return jsonAnswer(400, { error: "body is not JSON" });
    }
    const event = GoogleChatEventSchema.safeParse(raw);
    if (!event.success) return jsonAnswer(400, { error: `not a Chat event: ${event.error.issues[0]?.path.join(".")}` });
    if (event.data.type === "REMOVED_FROM_SPACE" || (event.data.type === "ADDED_TO_SPACE" && !event.data.message)) {
      this.setup.logger.info(`Google Chat: ${event.data.type === "ADDED_TO_SPACE" ? "added to" : "removed from"} ${event.data.space?.name ?? "a space"}`);
      return jsonAnswer(200, {});
    }
    const message = normalizeGoogleChat(this.name, event.data);
    if (!message) {
      this.setup.logger.debug(`Google Chat: skipped a ${event.data.type} event`);
      return jsonAnswer(200, {});
    }
    // an empty answer: the reply is created through the Chat API once the turn has run
    return this.acceptForwarded(this.onMessage!, message);
  }

  async send(reply: OutboundReply): Promise<string> {
    // a chat named by message_send's targets too: it goes into the URL's path, so it must be a space's name
    if (!SPACE_NAME.test(reply.chatId)) {
      throw new PrxError("CHANNEL_CONFIG", `googlechat: "${reply.chatId}" is not a space name`, { hint: "name the chat as spaces/<id> (the space's resource name)" });
    }
    const query = reply.threadId ? "?messageReplyOption=REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD" : "";
    const body = { text: reply.text, ...(reply.threadId ? { thread: { name: reply.threadId } } : {}) };
    const created = await this.retrying("send", async () =>
      platformJson({
        platform: "googlechat",
        what: "send",
        url: `${this.root}/v1/${reply.chatId}/messages${query}`,
        headers: { authorization: `Bearer ${await this.tokens.get()}` },
        body,
        schema: GoogleChatCreatedSchema,
        bounds: { timeoutMs: this.limits.requestTimeoutMs, signal: this.stopper.signal },
        explain: (status, json) => {
          const error = GoogleApiErrorSchema.safeParse(json);
          return error.success ? { message: `${error.data.error.message}${error.data.error.status ? ` (${error.data.error.status})` : ""}`, retryable: status === 429 || status >= 500 } : undefined;
        },
      }),
    );
    return created.name;
  }

  /** An uploaded attachment through the media API (https://developers.google.com/workspace/chat/api/reference/rest/v1/media/download). */
  async fetchAttachment(attachment: InboundAttachment, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
    const both = AbortSignal.any([signal, this.stopper.signal]);
    const url = `${this.root}/v1/media/${attachment.ref.split("/").map(encodeURIComponent).join("/")}?alt=media`;
    const headers = { authorization: `Bearer ${await this.tokens.get()}` };
    const got = await platformDownload("googlechat", "attachment download", url, { timeoutMs: ATTACHMENT_FETCH_TIMEOUT_MS, maxBytes, signal: both, headers });
    if (!got.ok) throw new PrxError("CHANNEL_PLATFORM", `googlechat: attachment download: HTTP ${got.status}`);
    return got.bytes;
  }
}
